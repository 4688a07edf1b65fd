/**
 * The routers' shared steps (the HTTP layer; services, repositories and the audit log know nothing of requests):
 * who is acting, for the audit log, and the authorization step that runs before a route validates its input.
 */
import { identityOf } from '@stratum/http-kit';
import type { Request, RequestHandler, Response } from 'express';
import type { AuditActor } from './audit/audit.log';
import type { Authorizer } from './domain-quotas/domain-quotas.policy';

/** The acting identity and request id of a request, for the audit log. */
export function actorOf(res: Response): AuditActor {
  const id = identityOf(res);
  return { userId: id.userId, projectId: id.projectId, domainId: id.domainId, requestId: String(res.locals.requestId ?? '') };
}

/** The target of a department's routes: the department named by the path parameter `domain_id`. */
export const departmentOf = (req: Request) => ({ domainId: req.params.domain_id as string | undefined });

/**
 * Middleware: `policy` must allow `action` to the caller, on the target `targetOf` reads from the request (none by
 * default). Runs before the route validates its input, so a caller who may not act gets the 403, never a 400.
 * @throws (to express's error handler) the policy's 403.
 */
export function allow<A extends string>(
  policy: Authorizer<A>,
  action: A,
  targetOf: (req: Request) => { domainId?: string } = () => ({}),
): RequestHandler {
  return (req, res, next) => {
    policy.authorize(identityOf(res), action, targetOf(req));
    next();
  };
}
