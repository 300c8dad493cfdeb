import http from 'node:http';
import { Webhook } from 'standardwebhooks';

export interface WebhookEvent {
  id: string;
  type: string;
  created_at: string;
  company_id: string;
  sequence: number;
  data: Record<string, unknown>;
}

/**
 * A receiver: verifies the signature (and the timestamp, within 5 minutes) with the
 * `standardwebhooks` package over the raw body, answers 204 at once and handles the event;
 * a retry of an event it already has (same webhook-id) is answered 204 and skipped.
 */
export function webhookReceiver(secret: string, handle: (event: WebhookEvent) => void): http.Server {
  const verifier = new Webhook(secret); // the whsec_... of the creation answer
  const seen = new Set<string>(); // keep these in your database in real life
  return http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      let event: WebhookEvent;
      try {
        event = verifier.verify(Buffer.concat(chunks).toString('utf8'), req.headers as Record<string, string>) as WebhookEvent;
      } catch {
        return void res.writeHead(400).end(); // not from us, or altered
      }
      res.writeHead(204).end();
      if (seen.has(event.id)) return;
      seen.add(event.id);
      handle(event);
    });
  });
}

// Run as a command: WEBHOOK_SECRET=whsec_... PORT=9000 npx tsx examples/webhook-receiver.ts
// prints each new event on its own line, until Ctrl-C.
if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  const secret = process.env.WEBHOOK_SECRET;
  if (!secret) throw new Error('WEBHOOK_SECRET: the whsec_... of the endpoint\'s creation answer');
  const port = Number(process.env.PORT ?? 9000);
  webhookReceiver(secret, (event) => console.log(JSON.stringify(event))).listen(port, () => console.log(`receiving on http://localhost:${port}/`));
}
