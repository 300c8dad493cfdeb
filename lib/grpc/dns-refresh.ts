import { experimental, type ChannelOptions } from '@grpc/grpc-js';

/** How often a DNS target is resolved again; also grpc-js's floor between two resolutions. */
export const DNS_REFRESH_OPTION = 'grpc.dns_min_time_between_resolutions_ms';

type GrpcUri = Parameters<typeof experimental.createResolver>[0];
type ResolverClass = Parameters<typeof experimental.registerResolver>[1];

let installed = false;

/**
 * grpc-js resolves a DNS target again only when a connection drops (grpc/grpc-node#2265,
 * #2847), so a replica added to a running stack (`docker compose up --scale`, a Kubernetes
 * autoscaler) would get no calls from clients that were already running. This replaces the
 * `dns:` resolver (also used for `host:port` targets) with grpc-js's own, asked again every
 * `grpc.dns_min_time_between_resolutions_ms` while the channel is in use: an unchanged answer
 * changes nothing, a new address joins the round-robin, connections are shared (the subchannel
 * pool) and no call is cut. The server-side alternative (max connection age) was measured to
 * refuse calls under load (docs/scaling.md).
 */
export function refreshDnsTargets(): void {
  if (installed) return;
  installed = true;
  const noop = () => true; // the probe never resolves: it is destroyed at once
  // grpc-js does not export its DNS resolver class; an instance made through the registry names it.
  const probe = experimental.createResolver({ scheme: 'dns', path: 'localhost:1' }, noop as never, {});
  const GrpcDnsResolver = probe.constructor as ResolverClass;
  probe.destroy();

  class RefreshingDnsResolver implements experimental.Resolver {
    private readonly inner: experimental.Resolver;
    private readonly everyMs: number;
    private timer?: NodeJS.Timeout;

    constructor(target: GrpcUri, listener: experimental.ResolverListener, options: ChannelOptions) {
      this.inner = new GrpcDnsResolver(target, listener, options);
      this.everyMs = Number(options[DNS_REFRESH_OPTION] ?? 30_000);
    }

    static getDefaultAuthority(target: GrpcUri): string {
      return GrpcDnsResolver.getDefaultAuthority(target);
    }

    updateResolution(): void {
      this.inner.updateResolution();
      if (this.timer) return;
      this.timer = setInterval(() => this.inner.updateResolution(), this.everyMs);
      this.timer.unref();
    }

    destroy(): void {
      clearInterval(this.timer);
      this.timer = undefined;
      this.inner.destroy();
    }
  }

  // Targets without a scheme (host:port) go to the default scheme's resolver, which is 'dns'.
  experimental.registerResolver('dns', RefreshingDnsResolver);
}
