// The mail bench's SMTP server, in a process of its own so that the bench's database and workers
// cannot slow its answers: reports each accepted message's submission id and time to the parent.
import { setTimeout } from 'node:timers';
import { SMTPServer } from 'smtp-server';

// BENCH_SMTP_SLOW=N:MS answers every Nth message MS milliseconds late (a server that scans some
// messages at length); unset, every message is answered at once.
const [every, lateMs] = (process.env.BENCH_SMTP_SLOW ?? '0:0').split(':').map(Number);
let count = 0;

const server = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS'],
  logger: false,
  disableReverseLookup: true,
  onData(stream, _session, done) {
    let head = '';
    stream.on('data', (c) => {
      if (head.length < 4096) head += c.toString('utf8');
    });
    stream.on('end', () => {
      const id = /Subject: [^\r\n]*?([0-9a-f]{8}-[0-9a-f-]{27})/.exec(head)?.[1];
      const answer = () => {
        process.send?.({ id: id ?? null, at: Date.now() });
        done();
      };
      if (every > 0 && ++count % every === 0) setTimeout(answer, lateMs);
      else answer();
    });
  },
});
server.listen(0, '127.0.0.1', () => process.send?.({ port: server.server.address().port }));
process.on('disconnect', () => server.close(() => process.exit(0)));
