import { TaskController } from '@/controllers/task.controller';

const controller = new TaskController();

export default controller.router;
