import type { Request, Response, Router } from 'express';
import type { Resource } from '../lib/fields/kinds.js';
import type { BodyKind } from './body.js';
import { callWithTypeErrors, resourceInput } from './body-input.js';
import { etagHeader, idempotencyKey, notModified, listCall, listQuery, methodNotAllowed, nextPageLink } from './request-input.js';
import { resourceJson } from './resource-json.js';

/**
 * The REST routes every resource (event, ticket) has, generic over its field table and a
 * backend facade: create, get, put, delete, and the paged-or-whole list. Everything here is
 * translation (body -> message and mask, If-Match -> etag, message -> JSON and ETag); every
 * rule is the service's.
 */

export interface ResourceMessage {
  guid: string;
  etag: string;
}

export interface NewResource {
  /** The parent named by the path (the event of a ticket); '' for none. */
  parentGuid: string;
  fields: Record<string, unknown>;
  requestId: string;
}

export interface ResourceChange {
  guid: string;
  fields: Record<string, unknown>;
  updateMask: string[];
  /** The If-Match header as received ('' when absent); the service parses it. */
  ifMatch: string;
}

export interface ResourceBackend<M extends ResourceMessage> {
  get(req: Request, guid: string): Promise<M>;
  create(req: Request, resource: NewResource, checkOnly: boolean): Promise<M>;
  update(req: Request, change: ResourceChange, checkOnly: boolean): Promise<M>;
  delete(req: Request, guid: string, ifMatch: string): Promise<unknown>;
}

export interface ResourceFace<M extends ResourceMessage> {
  resource: Resource;
  backend: ResourceBackend<M>;
  /** The creation response's body (default: the full object). */
  createdJson?: (message: M) => unknown;
  /** The collection's path (default: `/{noun}`). */
  path?: string;
}

const itemPath = <M extends ResourceMessage>(face: ResourceFace<M>) => face.path ?? `/${face.resource.noun}`;

const bodyOf = (req: Request) => req.body as Record<string, unknown>;
const bodyKind = (res: Response) => res.locals.bodyKind as BodyKind;
const ifMatchOf = (req: Request) => req.get('if-match') ?? '';
/** A path parameter (routes are built from strings, so express cannot type them). */
export const param = (req: Request, name: string) => req.params[name] as string;

/** The object with its ETag. */
function sendResource<M extends ResourceMessage>(res: Response, face: ResourceFace<M>, message: M, body: unknown = resourceJson(face.resource.fields, message)) {
  res.set('ETag', etagHeader(message.etag)).json(body);
}

/** POST `path`: a new resource (Idempotency-Key as request_id); `parentParam` names the path's parent GUID. */
export function createRoute<M extends ResourceMessage>(router: Router, path: string, face: ResourceFace<M>, parentParam?: string): void {
  router.post(path, async (req, res) => {
    const requestId = idempotencyKey(req);
    const input = resourceInput(face.resource, bodyOf(req), bodyKind(res), 'refuse');
    const parentGuid = parentParam ? param(req, parentParam) : '';
    const created = await callWithTypeErrors(input.violations, (checkOnly) => face.backend.create(req, { parentGuid, fields: input.fields, requestId }, checkOnly));
    res.status(201).location(`${itemPath(face)}/${created.guid}`);
    sendResource(res, face, created, face.createdJson?.(created));
  });
}

/** GET, PUT and DELETE `/{noun}/:guid`, and 405 for the other methods. */
export function itemRoutes<M extends ResourceMessage>(router: Router, face: ResourceFace<M>): void {
  const path = `${itemPath(face)}/:guid`;
  router.get(path, async (req, res) => {
    const message = await face.backend.get(req, param(req, 'guid'));
    if (notModified(req, message.etag)) return void res.status(304).set('ETag', etagHeader(message.etag)).end();
    sendResource(res, face, message);
  });

  router.put(path, async (req, res) => {
    const input = resourceInput(face.resource, bodyOf(req), bodyKind(res), 'mask');
    const change = { guid: param(req, 'guid'), fields: input.fields, updateMask: input.updateMask, ifMatch: ifMatchOf(req) };
    sendResource(res, face, await callWithTypeErrors(input.violations, (checkOnly) => face.backend.update(req, change, checkOnly)));
  });

  router.delete(path, async (req, res) => {
    await face.backend.delete(req, param(req, 'guid'), ifMatchOf(req));
    res.status(204).end();
  });
  router.all(path, methodNotAllowed(['GET', 'HEAD', 'PUT', 'DELETE']));
}

export interface ListFace<Item> {
  /** One page: the items and the next page's token ('' at the end). */
  page(req: Request, limit: number, cursor: string): Promise<{ items: Item[]; next: string }>;
  /** The whole list, streamed into the response. */
  whole(req: Request, res: Response): Promise<void>;
  toJson(item: Item): unknown;
  /** Query parameters that filter the list: kept in the next page's link. */
  filters?: readonly string[];
}

/** GET `path`: a page with `limit`/`cursor` (and a Link to the next one), else the whole list. */
export function listRoute<Item>(router: Router, path: string, list: ListFace<Item>): void {
  router.get(path, async (req, res) => {
    const query = listQuery(req);
    if (!query.page) return list.whole(req, res);
    const { limit, cursor } = query.page;
    const page = await listCall(() => list.page(req, limit, cursor));
    if (page.next) res.set('Link', nextPageLink(req, limit, page.next, list.filters));
    res.json(page.items.map(list.toJson));
  });
}
