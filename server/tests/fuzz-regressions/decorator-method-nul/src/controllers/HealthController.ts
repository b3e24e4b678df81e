import { Controller, Get } from 'routing-controllers';

// Imported by the server but not listed in `controllers`: not served.
@Controller('/health')
export class HealthController {
  @Get()
  ping() {
    return 'ok';
  }
}
