import { startTestStack, type TestStack } from './stack.js';
import { TcpProxy } from './tcp-proxy.js';

export interface StackBehindProxies {
  stack: TestStack;
  /** In front of the auth service's database. */
  authProxy: TcpProxy;
  /** In front of the ticket service's database. */
  ticketProxy: TcpProxy;
  stop(): Promise<void>;
}

/**
 * The real stack on MySQL, each service reaching its database through its own TCP proxy,
 * so that a test can cut and heal the connections of either (MySQL backend only).
 */
export async function startStackBehindDatabaseProxies(overrides: Record<string, string> = {}): Promise<StackBehindProxies> {
  const mysqlPort = Number(new URL(process.env.TEST_MYSQL_URL!).port || 3306);
  const authProxy = await TcpProxy.start(mysqlPort);
  const ticketProxy = await TcpProxy.start(mysqlPort);
  const throughProxy = (url: string) => {
    const parsed = new URL(url);
    parsed.hostname = '127.0.0.1';
    parsed.port = String((parsed.pathname.endsWith('_auth') ? authProxy : ticketProxy).port);
    return parsed.toString();
  };
  let stack: TestStack;
  try {
    stack = await startTestStack(overrides, { mapDatabaseUrl: throughProxy });
  } catch (err) {
    await Promise.all([authProxy.close(), ticketProxy.close()]);
    throw err;
  }
  return {
    stack,
    authProxy,
    ticketProxy,
    async stop() {
      await stack.stop();
      await Promise.all([authProxy.close(), ticketProxy.close()]);
    },
  };
}
