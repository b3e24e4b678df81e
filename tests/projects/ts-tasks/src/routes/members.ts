import { Router, type Request } from 'express';

import { validate } from '@/middleware/validate';
import { memberSchema, type MemberBody } from '@/schemas/task';

type MemberParams = { projectId: string; userId: string };

// mergeParams: true so :projectId from the parent mount is visible here.
const members = Router({ mergeParams: true });

const roles = new Map<string, MemberBody['role']>();
const key = (projectId: string, userId: string) => `${projectId}/${userId}`;

members.get('/', (req: Request<{ projectId: string }>, res) => {
  const prefix = `${req.params.projectId}/`;
  const list = [...roles.entries()]
    .filter(([k]) => k.startsWith(prefix))
    .map(([k, role]) => ({ userId: k.slice(prefix.length), role }));
  res.json(list);
});

members.put('/:userId', validate(memberSchema), (req: Request<MemberParams, unknown, MemberBody>, res) => {
  roles.set(key(req.params.projectId, req.params.userId), req.body.role);
  res.status(200).json({ userId: req.params.userId, role: req.body.role });
});

members.delete('/:userId', (req: Request<MemberParams>, res) => {
  roles.delete(key(req.params.projectId, req.params.userId));
  res.sendStatus(204);
});

export default members;
