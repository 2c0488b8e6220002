import test from 'ava';
import { cleanCreditLine, creditNames, normaliseCredit } from '../src/index.js';

test('normalisation folds case, accents and punctuation', (t) => {
  t.is(normaliseCredit('Crédit : AFP/J. Doe'), 'credit afp j doe');
  t.is(normaliseCredit('  ÉLÈVE—Studio  '), 'eleve studio');
});

test('lead words are removed from a credit line', (t) => {
  t.is(cleanCreditLine('© Photo: Jane Doe / Agence X'), 'Jane Doe / Agence X');
  t.is(cleanCreditLine('Crédit : Studio Lumière'), 'Studio Lumière');
  t.is(cleanCreditLine('Copyright (c) 2026 ACME'), '2026 ACME');
  t.is(cleanCreditLine('   '), null);
  t.is(cleanCreditLine(undefined), null);
});

test('a credit names an account only on whole words of a long enough name', (t) => {
  t.is(creditNames('Photo: AFP/John Doe', ['Agence Lumière', 'AFP']), 'AFP');
  t.is(creditNames('© AGENCE LUMIERE 2026', ['Agence Lumière']), 'Agence Lumière');
  t.is(creditNames('Photo: AFPX', ['AFP']), null);
  t.is(creditNames('by XY', ['xy']), null, 'two letters are too short to name anyone');
  t.is(creditNames('', ['AFP']), null);
});
