// The baseline: a bare node:http server that reads the request body and answers a fixed JSON body
// (BARE_BODY, the same bytes the key service answers to a verification). Prints its URL on stderr.
import { createServer } from 'node:http';

const body = Buffer.from(process.env.BARE_BODY ?? '{"success":true}');
const server = createServer((req, res) => {
  req.on('data', () => {});
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length });
    res.end(body);
  });
});
server.listen(0, '127.0.0.1', () => {
  process.stderr.write(`http://127.0.0.1:${server.address().port}\n`);
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.close(() => process.exit(0)));
