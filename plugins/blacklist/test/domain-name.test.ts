import test from 'ava';
import { domainAndParents, normaliseDomain } from '../src/index.js';

test('domains are normalised: case, scheme, credentials, port, path, trailing dot, IDN', (t) => {
  t.is(normaliseDomain('Example.COM'), 'example.com');
  t.is(normaliseDomain('https://user:pw@www.Example.com:8443/a/b?c=d#e'), 'www.example.com');
  t.is(normaliseDomain('//cdn.example.co.uk/x'), 'cdn.example.co.uk');
  t.is(normaliseDomain('example.com.'), 'example.com');
  t.is(normaliseDomain('bücher.de'), 'xn--bcher-kva.de');
});

test('what is not a domain with an extension is refused', (t) => {
  for (const bad of ['', 'localhost', '127.0.0.1', 'http://[::1]/', 'exa mple.com', '-bad.com', 'example.c', 'example.123', '..', 'a..b.com']) {
    t.is(normaliseDomain(bad), null, bad);
  }
});

test('parents of a host, down to the registrable part', (t) => {
  t.deepEqual(domainAndParents('a.b.example.com'), ['a.b.example.com', 'b.example.com', 'example.com']);
});
