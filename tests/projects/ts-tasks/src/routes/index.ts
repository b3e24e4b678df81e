export { default as tasks } from './tasks';
export { default as projects } from './projects';
export { default as health } from './health';
