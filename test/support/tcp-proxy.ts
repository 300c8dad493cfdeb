import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A loopback TCP proxy for fault tests: cut() drops every connection and refuses new ones
 * (a partition: the server behind keeps its data, commands in flight are lost); heal() lets
 * connections through again.
 */
export class TcpProxy {
  private readonly sockets = new Set<Socket>();
  private isCut = false;

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async start(targetPort: number): Promise<TcpProxy> {
    const holder: { proxy?: TcpProxy } = {};
    const server = createServer((client) => {
      const proxy = holder.proxy;
      if (!proxy || proxy.isCut) {
        client.destroy();
        return;
      }
      const upstream = connect(targetPort, '127.0.0.1');
      for (const socket of [client, upstream]) {
        proxy.sockets.add(socket);
        socket.on('close', () => proxy.sockets.delete(socket));
        socket.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    const port = await new Promise<number>((resolve) =>
      server.listen(0, '127.0.0.1', () => {
        const address = server.address();
        resolve(typeof address === 'object' && address ? address.port : 0);
      }),
    );
    holder.proxy = new TcpProxy(server, port);
    return holder.proxy;
  }

  cut(): void {
    this.isCut = true;
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
  }

  heal(): void {
    this.isCut = false;
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
