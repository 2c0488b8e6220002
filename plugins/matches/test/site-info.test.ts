import test from 'ava';
import { siteOf } from '../src/site-info.js';

test('a registrable domain: domain, suffix and the ccTLD country', (t) => {
  t.deepEqual(siteOf('https://www.lemonde.fr/a.html'), { host: 'www.lemonde.fr', domain: 'lemonde.fr', suffix: 'fr', name: 'Lemonde', country: 'FR' });
  t.like(siteOf('http://news.bbc.co.uk/'), { domain: 'bbc.co.uk', suffix: 'co.uk', country: 'GB' });
  t.like(siteOf('https://example.com/', { name: 'Example', country: 'us' }), { name: 'Example', country: 'US' });
});

test('a host without a registrable domain is a site of its own, named by its host', (t) => {
  t.deepEqual(siteOf('http://127.0.0.1:8191/en-US/news.html'), { host: '127.0.0.1', domain: '127.0.0.1', suffix: '', name: '127.0.0.1', country: null });
  t.like(siteOf('http://localhost/x'), { domain: 'localhost', name: 'localhost' });
  t.like(siteOf('http://[::1]:80/'), { domain: '::1' });
  t.like(siteOf('http://intranet/'), { domain: 'intranet' });
  t.is(siteOf('not a url'), null);
});
