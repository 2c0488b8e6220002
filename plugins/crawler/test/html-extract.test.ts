import test from 'ava';
import { extractPage, srcsetUrls } from '../src/html-extract.js';

const page = 'https://example.com/dir/page.html';

test('srcset is read as browsers read it: candidates without a space after the comma, commas inside URLs (image CDNs)', (t) => {
  t.deepEqual(srcsetUrls('a.jpg 1x,b.jpg 2x'), ['a.jpg', 'b.jpg']);
  t.deepEqual(srcsetUrls('https://res.example.net/w_400,c_fill/a.jpg 400w, https://res.example.net/w_800,c_fill/a.jpg 800w'), [
    'https://res.example.net/w_400,c_fill/a.jpg',
    'https://res.example.net/w_800,c_fill/a.jpg',
  ]);
  t.deepEqual(srcsetUrls(' a.jpg, b.jpg ,c.jpg'), ['a.jpg', 'b.jpg', 'c.jpg']);
  t.deepEqual(srcsetUrls('\n  small.jpg 320w,\n  big.jpg 1280w\n'), ['small.jpg', 'big.jpg']);
  t.deepEqual(srcsetUrls(''), []);
});

test('a <meta http-equiv=refresh> redirect is a link (documentation roots, moved pages)', (t) => {
  const extracted = extractPage('<html><head><meta http-equiv="Refresh" content="0; URL=\'en-US/index.html\'"></head></html>', page);
  t.deepEqual(extracted.links, ['https://example.com/dir/en-US/index.html']);
  t.deepEqual(extractPage('<meta http-equiv="refresh" content="5;url=/moved">', page).links, ['https://example.com/moved']);
  t.deepEqual(extractPage('<meta http-equiv="refresh" content="30">', page).links, [], 'a plain reload names no page');
  t.deepEqual(extractPage('<meta http-equiv="refresh" content="0; url=javascript:alert(1)">', page).links, []);
});
