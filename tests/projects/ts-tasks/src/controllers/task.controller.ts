import { Router, type Request, type Response } from 'express';

import { validate } from '@/middleware/validate';
import {
  createTaskSchema,
  listTasksQuery,
  updateTaskSchema,
  type CreateTaskBody,
  type Task,
  type UpdateTaskBody,
} from '@/schemas/task';
import { MemoryRepo } from '@/store/memory';

type TaskParams = { taskId: string };

export class TaskController {
  router = Router();
  private readonly repo = new MemoryRepo<Task>();

  constructor() {
    this.router.get('/', this.list);
    this.router.post('/', validate(createTaskSchema), this.create);
    this.router.get('/:taskId', this.get);
    this.router.patch('/:taskId', validate(updateTaskSchema), this.update);
    this.router.delete('/:taskId', this.remove);
    this.router.post('/:taskId/complete', this.complete);
  }

  private list = (req: Request, res: Response) => {
    const query = listTasksQuery.parse(req.query);
    let rows = this.repo.all();
    if (query.done) rows = rows.filter((t) => String(t.done) === query.done);
    if (query.tag) rows = rows.filter((t) => t.tags.includes(query.tag as string));
    res.json(rows.slice(0, query.limit));
  };

  private create = (req: Request<{}, Task, CreateTaskBody>, res: Response<Task>) => {
    const body = createTaskSchema.parse(req.body);
    const task = this.repo.insert({ ...body, done: false, createdAt: new Date().toISOString() });
    res.status(201).json(task);
  };

  private get = (req: Request<TaskParams>, res: Response) => {
    const task = this.repo.find(req.params.taskId);
    if (!task) {
      res.status(404).json({ error: 'not found' });
      return;
    }
    res.json(task);
  };

  private update = (req: Request<TaskParams, Task, UpdateTaskBody>, res: Response) => {
    const task = this.repo.find(req.params.taskId);
    if (!task) {
      res.status(404).json({ error: 'not found' });
      return;
    }
    res.json(this.repo.save({ ...task, ...req.body }));
  };

  private remove = (req: Request<TaskParams>, res: Response) => {
    if (!this.repo.delete(req.params.taskId)) {
      res.status(404).json({ error: 'not found' });
      return;
    }
    res.sendStatus(204);
  };

  private complete = (req: Request<TaskParams>, res: Response) => {
    const task = this.repo.find(req.params.taskId);
    if (!task) {
      res.status(404).json({ error: 'not found' });
      return;
    }
    res.json(this.repo.save({ ...task, done: true }));
  };
}
