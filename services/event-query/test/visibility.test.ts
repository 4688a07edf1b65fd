/**
 * Group A visibility in every endpoint through the gateway on FerretDB: two projects side by side, an admin's own
 * project, events without a project and events scoped by tenant_id only.
 */
import { type TestStack, uuid } from '@stratum/testing';
import type { Event } from '@stratum/traits';
import request from 'supertest';
import { at, craftedStack, event, ids } from './crafted';

describe('group A: visibility (FerretDB)', () => {
  const ctx = craftedStack();
  const { seed, as } = ctx;

  describe('visibility in every endpoint', () => {
    const typeA = `vis.a.${uuid().slice(0, 8)}`;
    const typeB = `vis.b.${uuid().slice(0, 8)}`;
    const typeAdmin = `vis.admin.${uuid().slice(0, 8)}`;
    const typeNone = `vis.none.${uuid().slice(0, 8)}`;
    let a: Event;
    let b: Event;
    let own: Event;
    let none: Event;
    let tenantOnly: Event;

    beforeAll(async () => {
      [a, b, own, none, tenantOnly] = (await seed([
        event({
          type: typeA,
          generated: at(1),
          project: ctx.stack.projectA,
          traits: [{ name: 'flavor', type: 'String', value: 'a-flavor' }],
        }),
        event({
          type: typeB,
          generated: at(2),
          project: ctx.stack.projectB,
          traits: [{ name: 'flavor', type: 'String', value: 'b-flavor' }],
        }),
        event({ type: typeAdmin, generated: at(3), project: ctx.stack.personas.admin.projectId }),
        event({ type: typeNone, generated: at(4), project: null, traits: [{ name: 'flavor', type: 'String', value: 'no-project' }] }),
        // Scope from tenant_id when there is no project_id trait (older notifications).
        event({ type: typeA, generated: at(5), traits: [{ name: 'tenant_id', type: 'String', value: ctx.stack.projectA }] }),
      ])) as [Event, Event, Event, Event, Event];
    });

    const listIds = async (who: keyof TestStack['personas'], qs = '') =>
      ids(await request(ctx.stack.gateway).get(`/v2/events?limit=200${qs}`).set(as(who)));

    it('list: a member sees their project only (project_id or tenant_id); a reader the same', async () => {
      for (const who of ['memberA', 'readerA'] as const) {
        const seen = await listIds(who);
        expect(seen).toEqual(expect.arrayContaining([a.message_id, tenantOnly.message_id]));
        for (const e of [b, own, none]) expect(seen).not.toContain(e.message_id);
      }
      const seenB = await listIds('memberB');
      expect(seenB).toContain(b.message_id);
      for (const e of [a, own, none, tenantOnly]) expect(seenB).not.toContain(e.message_id);
    });

    it('list: an admin sees their own project and project-less events; all_tenants shows everything', async () => {
      const seen = await listIds('admin');
      expect(seen).toEqual(expect.arrayContaining([own.message_id, none.message_id]));
      for (const e of [a, b, tenantOnly]) expect(seen).not.toContain(e.message_id);
      const all = await listIds('admin', '&q.field=all_tenants&q.value=True');
      expect(all).toEqual(expect.arrayContaining([a.message_id, b.message_id, own.message_id, none.message_id, tenantOnly.message_id]));
    });

    it('a member cannot lift the restriction with all_tenants (it is a trait filter for them), nor can a department admin', async () => {
      expect(await listIds('memberA', '&q.field=all_tenants&q.value=True')).toEqual([]);
      expect(await listIds('deptAdmin', '&q.field=all_tenants&q.value=True')).toEqual([]);
      const types = await request(ctx.stack.gateway).get('/v2/event_types?all_tenants=true').set(as('deptAdmin'));
      expect(types.body).toEqual([]);
    });

    it('get: 404 for events outside the caller scope; admins may read any with all_tenants', async () => {
      const get = (who: keyof TestStack['personas'], id: string, qs = '') =>
        request(ctx.stack.gateway).get(`/v2/events/${id}${qs}`).set(as(who));
      expect((await get('memberA', b.message_id)).status).toBe(404);
      expect((await get('memberA', none.message_id)).status).toBe(404);
      expect((await get('memberA', tenantOnly.message_id)).status).toBe(200);
      expect((await get('admin', a.message_id)).status).toBe(404);
      expect((await get('admin', none.message_id)).status).toBe(200);
      expect((await get('admin', a.message_id, '?all_tenants=true')).status).toBe(200);
      expect((await get('memberB', a.message_id, '?all_tenants=true')).status).toBe(404);
    });

    it('complex query: scoped the same way; all_tenants only lifts it for admins', async () => {
      const types = [typeA, typeB, typeAdmin, typeNone];
      const query = async (who: keyof TestStack['personas'], extra = {}) =>
        ids(
          await request(ctx.stack.gateway)
            .post('/v2/query/events')
            .set(as(who))
            .send({ filter: JSON.stringify({ in: { event_type: types } }), ...extra }),
        );
      expect((await query('memberA')).sort()).toEqual([a.message_id, tenantOnly.message_id].sort());
      expect((await query('memberA', { all_tenants: true })).sort()).toEqual([a.message_id, tenantOnly.message_id].sort());
      expect((await query('admin')).sort()).toEqual([own.message_id, none.message_id].sort());
      expect(await query('admin', { all_tenants: true })).toHaveLength(5);
    });

    it('event types: each caller sees the types of the events they may see', async () => {
      const types = async (who: keyof TestStack['personas'], qs = '') => {
        const res = await request(ctx.stack.gateway).get(`/v2/event_types/${qs}`).set(as(who));
        expect(res.status).toBe(200);
        expect(res.body).toEqual([...res.body].sort());
        return res.body as string[];
      };
      const seenA = await types('memberA');
      expect(seenA).toContain(typeA);
      for (const t of [typeB, typeAdmin, typeNone]) expect(seenA).not.toContain(t);
      const seenAdmin = await types('admin');
      expect(seenAdmin).toEqual(expect.arrayContaining([typeAdmin, typeNone]));
      expect(seenAdmin).not.toContain(typeA);
      expect(await types('admin', '?all_tenants=true')).toEqual(expect.arrayContaining([typeA, typeB, typeAdmin, typeNone]));
    });

    it('trait descriptions and trait values: scoped too, values paged', async () => {
      const desc = await request(ctx.stack.gateway).get(`/v2/event_types/${typeA}/traits/`).set(as('memberA'));
      expect(desc.body).toEqual([
        { name: 'flavor', type: 'String' },
        { name: 'project_id', type: 'String' },
        { name: 'service', type: 'String' },
        { name: 'tenant_id', type: 'String' },
      ]);
      expect((await request(ctx.stack.gateway).get(`/v2/event_types/${typeA}/traits`).set(as('memberB'))).body).toEqual([]);
      const values = await request(ctx.stack.gateway).get(`/v2/event_types/${typeA}/traits/flavor`).set(as('memberA'));
      expect(values.body).toEqual([{ name: 'flavor', type: 'String', value: 'a-flavor' }]);
      expect((await request(ctx.stack.gateway).get(`/v2/event_types/${typeB}/traits/flavor`).set(as('memberA'))).body).toEqual([]);
      const paged = await request(ctx.stack.gateway).get(`/v2/event_types/${typeA}/traits/service?limit=1`).set(as('memberA'));
      expect(paged.body).toHaveLength(1);
      expect(paged.headers.link).toMatch(/\/v2\/event_types\/[^/]+\/traits\/service\?limit=1&marker=/);
      expect((await request(ctx.stack.gateway).get(`/v2/event_types/${typeA}`).set(as('memberA'))).status).toBe(404);
    });
  });
});
