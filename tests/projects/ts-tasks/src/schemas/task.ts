import { z } from 'zod';

export const taskPriority = z.enum(['low', 'normal', 'high', 'urgent']);

export const createTaskSchema = z.object({
  title: z.string().min(1).max(200),
  description: z.string().max(5000).optional(),
  priority: taskPriority.default('normal'),
  dueDate: z.string().date().optional(),
  projectId: z.string().uuid().optional(),
  tags: z.array(z.string().min(1).max(32)).max(10).default([]),
});

export const updateTaskSchema = createTaskSchema.partial().extend({
  done: z.boolean().optional(),
});

export const listTasksQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(25),
  done: z.enum(['true', 'false']).optional(),
  tag: z.string().optional(),
});

export const createProjectSchema = z.object({
  name: z.string().min(2).max(80),
  ownerId: z.string(),
});

export const memberSchema = z.object({
  role: z.enum(['viewer', 'editor', 'owner']),
});

export type CreateTaskBody = z.infer<typeof createTaskSchema>;
export type UpdateTaskBody = z.infer<typeof updateTaskSchema>;
export type CreateProjectBody = z.infer<typeof createProjectSchema>;
export type MemberBody = z.infer<typeof memberSchema>;

export interface Task extends CreateTaskBody {
  id: string;
  done: boolean;
  createdAt: string;
}
