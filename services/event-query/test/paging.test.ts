/**
 * Group A marker paging and the Link header through the gateway on FerretDB, with crafted events.
 */
import { uuid } from '@stratum/testing';
import type { Event } from '@stratum/traits';
import request from 'supertest';
import { at, craftedStack, event, ids } from './crafted';

describe('group A: paging (FerretDB)', () => {
  const ctx = craftedStack();
  const { seed, as } = ctx;

  describe('marker paging and the Link header', () => {
    const resource = uuid();
    let seeded: Event[];

    beforeAll(async () => {
      // 12 events, two of them at the same instant (the message_id breaks the tie).
      seeded = await seed(
        Array.from({ length: 12 }, (_, i) =>
          event({ type: 'paging.test', generated: at(i === 5 ? 4 : i), project: ctx.stack.projectA, resource }),
        ),
      );
    });

    const byOrder = (events: Event[]) =>
      [...events].sort((a, b) => (a.generated < b.generated ? -1 : a.generated > b.generated ? 1 : a.message_id < b.message_id ? -1 : 1));
    const follow = (link: string) => {
      const m = /^<([^>]+)>; rel="next"$/.exec(link);
      expect(m).not.toBeNull();
      const url = new URL(m?.[1] as string);
      return `${url.pathname}${url.search}`;
    };

    it('pages through every row exactly once, in order, following Link until it is absent', async () => {
      const seen: string[] = [];
      let path: string | undefined = `/v2/events?q.field=resource_id&q.value=${resource}&limit=5`;
      let pages = 0;
      while (path) {
        const res: request.Response = await request(ctx.stack.gateway).get(path).set(as('memberA'));
        expect(res.status).toBe(200);
        seen.push(...ids(res));
        pages++;
        path = res.headers.link ? follow(res.headers.link as string) : undefined;
      }
      expect(pages).toBe(3);
      expect(seen).toEqual(byOrder(seeded).map((e) => e.message_id));
    });

    it('stays stable while events are inserted: no repeats, no skips; later rows appear, earlier ones do not', async () => {
      const first = await request(ctx.stack.gateway).get(`/v2/events?q.field=resource_id&q.value=${resource}&limit=6`).set(as('memberA'));
      const [before, after] = await seed([
        event({ type: 'paging.test', generated: at(0), project: ctx.stack.projectA, resource }),
        event({ type: 'paging.test', generated: at(30), project: ctx.stack.projectA, resource }),
      ]);
      const rest = await request(ctx.stack.gateway)
        .get(follow(first.headers.link as string).replace('limit=6', 'limit=50'))
        .set(as('memberA'));
      const all = [...ids(first), ...ids(rest)];
      expect(new Set(all).size).toBe(all.length);
      expect(all).not.toContain(before?.message_id);
      expect(ids(rest).at(-1)).toBe(after?.message_id);
      for (const e of seeded) expect(all).toContain(e.message_id);
    });

    it('pages in descending order by generated and by message_id', async () => {
      const desc = await request(ctx.stack.gateway)
        .get(`/v2/events?q.field=event_type&q.value=paging.test&sort=generated:desc&limit=3`)
        .set(as('memberA'));
      const next = await request(ctx.stack.gateway)
        .get(follow(desc.headers.link as string))
        .set(as('memberA'));
      const gens = [...desc.body, ...next.body].map((e: { generated: string }) => e.generated);
      expect(gens).toEqual([...gens].sort().reverse());
      const byId = await request(ctx.stack.gateway)
        .get(`/v2/events?q.field=event_type&q.value=paging.test&sort=message_id&limit=4`)
        .set(as('memberA'));
      const more = await request(ctx.stack.gateway)
        .get(follow(byId.headers.link as string))
        .set(as('memberA'));
      const msgIds = [...ids(byId), ...ids(more)];
      expect(msgIds).toEqual([...msgIds].sort());
    });

    it('puts the next link on the base URL the client used, prefix included', async () => {
      const res = await request(ctx.stack.gateway)
        .get(`/event/v2/events?q.field=resource_id&q.value=${resource}&limit=2`)
        .set(as('memberA'));
      expect(res.headers.link).toMatch(
        /^<http:\/\/127\.0\.0\.1:\d+\/event\/v2\/events\?q\.field=resource_id&q\.op=eq&q\.value=[^&]+&q\.type=&limit=2&marker=[^>]+>; rel="next"$/,
      );
      const page2 = await request(ctx.stack.gateway)
        .get(follow(res.headers.link as string))
        .set(as('memberA'));
      expect(page2.status).toBe(200);
      expect(page2.body).toHaveLength(2);
    });

    it('answers a POST list with a GET link carrying the body query', async () => {
      const res = await request(ctx.stack.gateway)
        .post('/v2/events')
        .set(as('memberA'))
        .send({ q: [{ field: 'resource_id', value: resource }], limit: 4 });
      expect(res.status).toBe(200);
      const next = await request(ctx.stack.gateway)
        .get(follow(res.headers.link as string))
        .set(as('memberA'));
      expect(next.body).toHaveLength(4);
      expect(ids(next)).not.toContain(ids(res)[0]);
    });

    it("refuses an unknown marker, or another project's, with a 400 (Panko: 500)", async () => {
      const [other] = await seed([event({ type: 'paging.test', generated: at(1), project: ctx.stack.projectB })]);
      for (const marker of [uuid(), other?.message_id]) {
        const res = await request(ctx.stack.gateway).get(`/v2/events?marker=${marker}`).set(as('memberA'));
        expect(res.status).toBe(400);
        expect(res.body.error_message.faultstring).toBe(`Marker ${marker} not found.`);
      }
    });
  });
});
