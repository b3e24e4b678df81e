import { Router } from 'express';

import berths from './berths.js';
import bookings from './bookings.ts';
import reports from './reports.js';
import auth from './auth.js';
import { createCrudRouter } from '../lib/crud.js';
import { shipStore, cargoStore } from '../lib/stores.js';

const router = Router();

router.use('/berths', berths);
router.use('/bookings', bookings);
router.use('/ships', createCrudRouter('ships', shipStore));
router.use('/cargo', createCrudRouter('cargo', cargoStore));
router.use(['/v1/reports', '/v2/reports'], reports);
router.use('/auth', auth);

export default router;
