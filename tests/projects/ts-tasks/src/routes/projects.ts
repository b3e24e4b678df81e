import { Router } from 'express';

import { validate } from '@/middleware/validate';
import { createProjectSchema, type CreateProjectBody } from '@/schemas/task';
import { MemoryRepo } from '@/store/memory';
import members from './members';

interface Project extends CreateProjectBody {
  id: string;
  archived: boolean;
}

const repo = new MemoryRepo<Project>();
const router = Router();

router.get('/', (req, res) => {
  const includeArchived = req.query.archived === 'true';
  res.json(repo.all().filter((p) => includeArchived || !p.archived));
});

router.post('/', validate(createProjectSchema), (req, res) => {
  const project = repo.insert({ ...(req.body as CreateProjectBody), archived: false });
  res.status(201).json(project);
});

router.get('/:projectId', (req, res) => {
  const project = repo.find(req.params.projectId);
  if (!project) {
    res.status(404).json({ error: 'not found' });
    return;
  }
  res.json(project);
});

router.post('/:projectId/archive', (req, res) => {
  const project = repo.find(req.params.projectId);
  if (!project) {
    res.status(404).json({ error: 'not found' });
    return;
  }
  res.json(repo.save({ ...project, archived: true }));
});

router.use('/:projectId/members', members);

export default router;
