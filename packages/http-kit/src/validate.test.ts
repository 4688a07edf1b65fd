import express from 'express';
import request from 'supertest';
import { z } from 'zod';
import { AppError } from './app-error';
import { fieldIssues, validate } from './validate';

/** An app with one validated route and an error handler that shows what validate() passed on. */
function appWith(v: ReturnType<typeof validate>) {
  const app = express();
  app.use(express.json());
  app.post('/things/:id', v, (_req, res) => {
    res.json(v.input(res));
  });
  app.use(((err, _req, res, _next) => {
    const e = err as AppError;
    res.status(e instanceof AppError ? e.status : 500).json({ message: e.message, details: e.details ?? null });
  }) as express.ErrorRequestHandler);
  return app;
}

describe('validate', () => {
  const v = validate({
    params: z.object({ id: z.string().regex(/^[a-z]+$/, { error: 'id must be lower-case letters' }) }),
    query: z.object({ limit: z.coerce.number().int().min(1, { error: 'limit must be positive' }).optional() }),
    body: z.strictObject({ name: z.string({ error: 'name must be a string' }) }),
  });

  it('gives the handler the parsed parts', async () => {
    const res = await request(appWith(v)).post('/things/abc?limit=3').send({ name: 'n' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ params: { id: 'abc' }, query: { limit: 3 }, body: { name: 'n' } });
  });

  it('stops at the first failing part, params before query before body', async () => {
    const res = await request(appWith(v)).post('/things/ABC?limit=0').send({ name: 1 });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('id must be lower-case letters');
    const q = await request(appWith(v)).post('/things/abc?limit=0').send({ name: 1 });
    expect(q.body.message).toBe('limit must be positive');
    const b = await request(appWith(v)).post('/things/abc').send({ name: 1 });
    expect(b.body).toEqual({ message: 'name must be a string', details: [{ field: 'name', reason: 'name must be a string' }] });
  });

  it("uses the group's error when given one", async () => {
    const octavia = validate({ body: z.object({ quota: z.object({}) }) }, () => new AppError(422, 'group message'));
    const res = await request(appWith(octavia)).post('/things/abc').send({});
    expect(res.status).toBe(422);
    expect(res.body.message).toBe('group message');
  });

  it('throws when input() is read before the middleware ran', () => {
    expect(() => v.input({ locals: {} } as never)).toThrow(/before the validating middleware/);
  });
});

describe('fieldIssues', () => {
  it('names the whole part when an issue has no path', () => {
    const parsed = z.object({ a: z.string() }).safeParse(5);
    expect(parsed.success).toBe(false);
    if (parsed.success) return;
    expect(fieldIssues({ part: 'body', issues: parsed.error.issues })).toEqual([{ field: '(body)', reason: expect.any(String) }]);
  });
});
