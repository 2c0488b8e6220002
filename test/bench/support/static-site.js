// A static file server for the crawl benchmark, run as its own process so that its CPU is not
// counted against either crawler. Usage: node static-site.js ROOT  (prints the port).
const http = require('node:http');
const fs = require('node:fs');
const path = require('node:path');
const root = path.resolve(process.argv[2]);
const types = { '.html': 'text/html; charset=utf-8', '.css': 'text/css', '.png': 'image/png', '.jpg': 'image/jpeg', '.gif': 'image/gif', '.svg': 'image/svg+xml', '.js': 'text/javascript' };
const langs = fs.readdirSync(root).filter((d) => fs.existsSync(path.join(root, d, 'index.html')));
const index = `<!doctype html><html><body>${langs.map((l) => `<a href="/${l}/index.html">${l}</a>`).join(' ')}</body></html>`;
http
  .createServer((req, res) => {
    const p = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    if (p === '/') return res.writeHead(200, { 'content-type': 'text/html' }).end(index);
    const file = path.join(root, path.normalize(p));
    if (!file.startsWith(root + path.sep)) return res.writeHead(403).end();
    fs.stat(file, (err, st) => {
      if (err || !st.isFile()) return res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      res.writeHead(200, { 'content-type': types[path.extname(file)] ?? 'application/octet-stream', 'content-length': st.size });
      fs.createReadStream(file).pipe(res);
    });
  })
  .listen(0, '127.0.0.1', function () {
    console.log(this.address().port);
  });
