// http_client.js MODE URL N: N chat requests from Node.js (its own HTTP/1.1 over libuv's non-blocking
// sockets and epoll; getaddrinfo in libuv's thread pool), with the host's key sk-host. MODE:
//   http      the http module, one kept-alive connection (an Agent with one socket), one request after another
//   fetch     global fetch (undici, its own pool), one request after another
//   stream    fetch of a streamed answer ("stream": true), read piece by piece
//   parallel  N requests at once (Promise.all) with the http module, each on a new connection
// Prints one line per request: "STATUS RETRY-AFTER REASON BODY" (headers absent: -; the body's newlines
// as \n), in request order, then "conns=K": the sockets the http module opened.
const http = require('http');
const [mode, url, nArg] = process.argv.slice(2);
const n = +nArg || 1;
const u = new URL(url);
const stream = mode === 'stream';
const body = JSON.stringify({model: 'gpt-4o-mini', max_tokens: 16, stream, messages: [{role: 'user', content: 'hi'}]});
const headers = {'Authorization': 'Bearer sk-host', 'Content-Type': 'application/json'};
const agent = new http.Agent({keepAlive: true, maxSockets: 1});
let conns = 0;
const line = (status, h, text) => `${status} ${h('retry-after') || '-'} ${h('x-llmgate-reason') || '-'} ${text.replace(/\n/g, '\\n')}`;

function viaHttp(a) {
  return new Promise((resolve, reject) => {
    const r = http.request({host: u.hostname, port: u.port || 80, path: u.pathname + u.search, method: 'POST', agent: a,
                            headers: {...headers, 'Content-Length': Buffer.byteLength(body)}}, (resp) => {
      let d = '';
      resp.setEncoding('utf8');
      resp.on('data', (c) => { d += c; });
      resp.on('end', () => resolve(line(resp.statusCode, (k) => resp.headers[k], d)));
    });
    r.on('socket', (s) => { if (!s.counted) { s.counted = true; conns++; } });
    r.on('error', reject);
    r.end(body);
  });
}

async function viaFetch() {
  const r = await fetch(u, {method: 'POST', headers, body});
  let d = '';
  const dec = new TextDecoder();
  for await (const piece of r.body)
    d += dec.decode(piece, {stream: true});
  return line(r.status, (k) => r.headers.get(k), d + dec.decode());
}

(async () => {
  const out = [];
  if (mode === 'parallel')
    out.push(...await Promise.all(Array.from({length: n}, () => viaHttp(false))));
  else
    for (let i = 0; i < n; i++)
      out.push(await (mode === 'http' ? viaHttp(agent) : viaFetch()));
  agent.destroy();
  console.log(out.join('\n'));
  console.log('conns=' + conns);
})().catch((e) => { console.log('ERR ' + e.message + (e.cause ? ' ' + e.cause.message : '')); process.exit(1); });
