import type { z } from 'zod';

/** True when a value is exactly of the schema's shape (see exactShapeCheck). */
export type ShapeCheck = (value: unknown) => boolean;

interface Def {
  type: string;
  shape?: Record<string, { _zod: { def: Def } }>;
  catchall?: unknown;
  innerType?: { _zod: { def: Def } };
  element?: { _zod: { def: Def } };
  entries?: Record<string, string | number>;
  checks?: Array<{ _zod: { def: { check: string; format?: string } } }>;
}

const defOf = (schema: { _zod: { def: Def } }): Def => schema._zod.def;

/**
 * A plain function that answers what "`schema.parse(value)` succeeds and its JSON is the value's
 * JSON" answers (the check shared/schemas.ts `builtByServer` answers need), for the few zod kinds
 * those answers are made of: objects (exactly their keys, in their order), arrays, strings, numbers
 * (finite; `.int()`: safe integers), booleans, enums of strings and `nullable`. Null for a schema
 * with anything else (a default, an optional key, a transform, a length or format check): then only
 * zod itself can say. It walks the value once and builds nothing, so it costs a few microseconds for
 * a kitchen board of 40 orders where zod's parse costs a large part of the answer's time (bench/README.md
 * "The order path, session 12").
 */
export function exactShapeCheck(schema: z.ZodType): ShapeCheck | null {
  return compile(defOf(schema as unknown as { _zod: { def: Def } }));
}

function compile(def: Def): ShapeCheck | null {
  switch (def.type) {
    case 'string':
      return def.checks?.length ? null : (v) => typeof v === 'string';
    case 'boolean':
      return (v) => typeof v === 'boolean';
    case 'number': {
      const checks = def.checks ?? [];
      if (checks.length === 0) return (v) => typeof v === 'number' && Number.isFinite(v);
      if (checks.every((c) => c._zod.def.check === 'number_format' && c._zod.def.format === 'safeint')) return (v) => Number.isSafeInteger(v);
      return null;
    }
    case 'enum': {
      const values = Object.values(def.entries ?? {});
      if (!values.every((x) => typeof x === 'string')) return null;
      const allowed = new Set(values);
      return (v) => typeof v === 'string' && allowed.has(v);
    }
    case 'nullable': {
      const inner = def.innerType ? compile(defOf(def.innerType)) : null;
      return inner && ((v) => v === null || inner(v));
    }
    case 'array': {
      if (def.checks?.length || !def.element) return null;
      const element = compile(defOf(def.element));
      return (
        element &&
        ((v) => {
          if (!Array.isArray(v)) return false;
          for (const x of v) if (!element(x)) return false;
          return true;
        })
      );
    }
    case 'object': {
      // Only the default (unknown keys stripped: an extra key would not survive the parse); no refinements.
      if (def.catchall !== undefined || def.checks?.length || !def.shape) return null;
      const keys = Object.keys(def.shape);
      const fields: ShapeCheck[] = [];
      for (const k of keys) {
        const f = compile(defOf(def.shape[k]!));
        if (!f) return null;
        fields.push(f);
      }
      const n = keys.length;
      return (v) => {
        if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
        const own = Object.keys(v);
        if (own.length !== n) return false;
        for (let i = 0; i < n; i++) {
          const k = keys[i]!;
          if (own[i] !== k || !fields[i]!((v as Record<string, unknown>)[k])) return false;
        }
        return true;
      };
    }
    default:
      return null;
  }
}
