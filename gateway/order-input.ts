import type { Request, Response } from 'express';
import type { Resource } from '../lib/fields/kinds.js';
import { ORDER_BODIES, ORDER_LINES } from '../lib/fields/order.js';
import type { FieldViolation } from '../lib/grpc/errors.js';
import type { BodyKind } from './body.js';
import { resourceInput } from './body-input.js';
import { invalidFields } from './problem.js';

type LineFields = Record<string, unknown>;

/** The `lines` of a body, each by its line table, its violations named `lines[i].field`. */
function linesInput(line: Resource, raw: unknown, kind: BodyKind, violations: FieldViolation[]): LineFields[] {
  if (raw === undefined) return [];
  // A list past its limit is refused before it is walked.
  if (Array.isArray(raw) && raw.length > ORDER_LINES.max) {
    violations.push({ field: 'lines', description: `must hold at most ${ORDER_LINES.max} lines` });
    return [];
  }
  if (!Array.isArray(raw) || raw.some((item) => typeof item !== 'object' || item === null || Array.isArray(item))) {
    violations.push({ field: 'lines', description: 'must be an array of objects (send the body as JSON)' });
    return [];
  }
  return raw.map((item: Record<string, unknown>, i) => {
    const input = resourceInput(line, item, kind, 'refuse');
    violations.push(...input.violations.map((v) => ({ ...v, field: `lines[${i}].${v.field}` })));
    return input.fields;
  });
}

/**
 * An order body (creation, confirm, cancel) as its request fields: the body's own fields by
 * their table, `lines` by the line table where it has one (elsewhere `lines` is an unknown
 * field). Type errors are refused with one 422.
 */
export function orderBody(req: Request, res: Response, which: keyof typeof ORDER_BODIES): { fields: Record<string, unknown>; lines: LineFields[] } {
  const tables: { own: Resource; line?: Resource } = ORDER_BODIES[which];
  const body = req.body as Record<string, unknown>;
  const { lines: rawLines, ...own } = body;
  const kind = res.locals.bodyKind as BodyKind;
  const input = resourceInput(tables.own, tables.line ? own : body, kind, 'refuse');
  const violations = [...input.violations];
  const lines = tables.line ? linesInput(tables.line, rawLines, kind, violations) : [];
  if (violations.length) throw invalidFields(violations);
  return { fields: input.fields, lines };
}
