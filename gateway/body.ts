import express, { type NextFunction, type Request, type Response } from 'express';
import multer from 'multer';
import { invalidFieldsProblem, sendProblem, type Problem } from './problem.js';

const JSON_TYPES = ['application/json', 'application/*+json'];
const FORM = 'application/x-www-form-urlencoded';
const MULTIPART = 'multipart/form-data';

export type BodyKind = 'json' | 'form' | 'none';

/**
 * Parses JSON, URL-encoded and multipart bodies into req.body (a plain object) and records
 * in res.locals.bodyKind whether the values are typed (json) or all strings (form).
 * 400 malformed, 413 over the limit, 415 any other content type, 422 JSON text sent as a form. The limit holds for the
 * whole body as it arrives on the wire, whatever its encoding and whether it is chunked:
 * past it the answer is 413 at once and nothing more is read.
 */
export function parseBody(limitBytes: number, respond: (res: Response, problem: Problem) => void = sendProblem) {
  const json = express.json({ limit: limitBytes, type: JSON_TYPES, strict: false });
  const form = express.urlencoded({ extended: false, limit: limitBytes, parameterLimit: 200 });
  const multipart = multer({ limits: { fieldSize: limitBytes, fields: 200, files: 0, parts: 200 } }).none();
  const tooLarge: Problem = { status: 413, detail: `The request body is larger than ${limitBytes} bytes.` };

  return (req: Request, res: Response, next: NextFunction) => {
    const hasBody = Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
    if (!hasBody) {
      req.body = {};
      res.locals.bodyKind = 'none' satisfies BodyKind;
      return next();
    }
    if (Number(req.headers['content-length'] ?? 0) > limitBytes) return refuseBody(req, res, () => respond(res, tooLarge));
    let answered = false;
    const answer = (problem: Problem) => {
      if (answered) return;
      answered = true;
      respond(res, problem);
    };
    countBody(req, limitBytes, () => refuseBody(req, res, () => answer(tooLarge)));
    const done = (kind: BodyKind) => (err?: unknown) => {
      if (answered) return;
      if (err) return answer(bodyError(err, limitBytes));
      if (kind === 'json' && (typeof req.body !== 'object' || req.body === null || Array.isArray(req.body))) {
        return answer({ status: 400, detail: 'The request body must be a JSON object.' });
      }
      req.body = { ...(req.body as object) };
      if (kind === 'form' && req.is(FORM) && isJsonSentAsForm(req.body as Record<string, unknown>)) return answer(JSON_AS_FORM);
      res.locals.bodyKind = kind;
      next();
    };
    if (req.is(JSON_TYPES)) return json(req, res, done('json'));
    if (req.is(FORM)) return form(req, res, done('form'));
    if (req.is(MULTIPART)) return multipart(req, res, done('form'));
    refuseBody(req, res, () =>
      answer({
        status: 415,
        detail: `Unsupported content type ${JSON.stringify(req.headers['content-type'] ?? '')}; send application/json, application/x-www-form-urlencoded or multipart/form-data.`,
      }),
    );
  };
}

/**
 * `curl -d '{"name":"x"}'` without a Content-Type sends a URL-encoded form whose only key is
 * the JSON text (or its pieces, when the JSON holds `=` or `&`). Answered as such, rather than as a field named after the whole JSON string.
 */
const JSON_AS_FORM = invalidFieldsProblem(
  [{ field: 'Content-Type', description: 'must be application/json for a JSON body' }],
  'The body is JSON text sent as a form (application/x-www-form-urlencoded); send it with Content-Type: application/json (curl: -H \'content-type: application/json\').',
);

/** The form's first key opens a JSON object or array (no field name does; a `=` or `&` in the JSON splits it into more keys). */
const isJsonSentAsForm = (body: Record<string, unknown>): boolean => /^\s*[{[]/.test(Object.keys(body)[0] ?? '');

/** Counts body bytes as they arrive, beside whichever parser reads them; calls `over` once the total passes the limit. */
function countBody(req: Request, limitBytes: number, over: () => void): void {
  let received = 0;
  const count = (chunk: Buffer) => {
    received += chunk.length;
    if (received <= limitBytes) return;
    req.off('data', count);
    over();
  };
  req.on('data', count);
}

/**
 * Answers a request without reading (the rest of) its body: reading stops, and the
 * connection closes after the answer instead of draining what the client still sends.
 */
export function refuseBody(req: Request, res: Response, answer: () => void): void {
  req.unpipe();
  req.pause();
  res.set('Connection', 'close');
  answer();
}

function bodyError(err: unknown, limitBytes: number): Problem {
  const e = err as { type?: string; code?: string; status?: number };
  if (e.type === 'entity.too.large' || e.code === 'LIMIT_FIELD_VALUE' || e.code === 'LIMIT_FIELD_COUNT' || e.code === 'LIMIT_PART_COUNT') {
    return { status: 413, detail: `The request body is larger than ${limitBytes} bytes or has too many fields.` };
  }
  if (e.type === 'encoding.unsupported' || e.type === 'charset.unsupported') return { status: 415, detail: 'Unsupported body encoding or charset.' };
  if (e.code === 'LIMIT_FILE_COUNT' || e.code === 'LIMIT_UNEXPECTED_FILE') return { status: 400, detail: 'File uploads are not accepted here.' };
  if (e.type === 'entity.parse.failed') return { status: 400, detail: 'The request body is not valid JSON.' };
  return { status: 400, detail: 'The request body could not be read.' };
}
