// The mail bench's SMTP server, in a process of its own so that the bench's database and workers
// cannot slow its answers: reports each accepted message's submission id and time to the parent.
import { SMTPServer } from 'smtp-server';

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
      process.send?.({ id: id ?? null, at: Date.now() });
      done();
    });
  },
});
server.listen(0, '127.0.0.1', () => process.send?.({ port: server.server.address().port }));
process.on('disconnect', () => server.close(() => process.exit(0)));
