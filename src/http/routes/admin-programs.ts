import { z } from 'zod';
import type { RouteContext } from '../http-context.ts';
import { createProgram, getProgram, listPrograms, updateProgram } from '../../core/programs/programs.ts';
import { json } from '../route.ts';
import { validate } from '../validate.ts';
import { adminOperation } from '../openapi/admin-operation.ts';
import { programSettingsFromWire, programToWire } from '../wire/programs.ts';
import {
  programCreateSchema,
  programJson,
  programUpdateSchema,
  type ProgramBody,
  type ProgramListBody,
} from '../wire/program-config.ts';
import type { AdminHelpers } from './admin-helpers.ts';
import { getStaffAccount } from '../../core/staff/staff-access.ts';

/** Programs: create, list, read, change settings. */
export function registerProgramRoutes(ctx: RouteContext, { on, num, body }: AdminHelpers): void {
  on('post', '/programs', async (e) => {
    const input = programSettingsFromWire(validate(programCreateSchema, await body(e)));
    return json({ program: programToWire(await createProgram(ctx.deps(), input)) } satisfies ProgramBody, 201);
  });
  on('get', '/programs', async (e) => {
    const programs = await listPrograms(ctx.deps());
    const c = e.context.admin;
    // A staff user sees the programs they have a role in (a token: its one program).
    const mine =
      c?.kind === 'staff'
        ? new Set((await getStaffAccount(ctx.deps(), c.staffUserId))?.roles.map((r) => r.programId))
        : null;
    const visible = programs.filter(
      (p) => !mine || (mine.has(p.id) && (c?.kind !== 'staff' || !c.token || c.token.programId === p.id)),
    );
    return { programs: visible.map(programToWire) } satisfies ProgramListBody;
  });
  on(
    'get',
    '/programs/:id',
    async (e) => ({ program: programToWire(await getProgram(ctx.deps(), num(e, 'id'))) }) satisfies ProgramBody,
  );
  on(
    'patch',
    '/programs/:id',
    async (e) => {
      const input = programSettingsFromWire(validate(programUpdateSchema, await body(e)));
      const program = await updateProgram(ctx.deps(), num(e, 'id'), input);
      // The API-key cache holds each key's program rate limit: a change takes effect at once here.
      ctx.keyCache.clear();
      return { program: programToWire(program) } satisfies ProgramBody;
    },
    async (e) => ({ program: programToWire(await getProgram(ctx.deps(), num(e, 'id'))) }),
  );
}

const programBody = z.strictObject({ program: programJson });
const id = z.number().int().positive();

export const programOperations = [
  adminOperation('post', '/programs', 'createProgram', 'Create a program', {
    body: programCreateSchema,
    responses: { 201: { description: 'Created', schema: programBody } },
  }),
  adminOperation('get', '/programs', 'listPrograms', 'List programs', {
    responses: { 200: { description: 'Programs', schema: z.strictObject({ programs: z.array(programJson) }) } },
  }),
  adminOperation('get', '/programs/:id', 'getProgram', 'A program', {
    params: { id },
    responses: { 200: { description: 'The program', schema: programBody } },
    errors: ['not_found'],
  }),
  adminOperation('patch', '/programs/:id', 'updateProgram', "Change a program's settings", {
    params: { id },
    body: programUpdateSchema,
    responses: { 200: { description: 'Updated', schema: programBody } },
    errors: ['not_found'],
  }),
];
