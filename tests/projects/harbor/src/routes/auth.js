import { Router } from 'express';
import passport from 'passport';
import { Strategy as LocalStrategy } from 'passport-local';
import { body, validationResult } from 'express-validator';

import { issueToken, requireAuth } from '../middleware/auth.js';

// Demo credentials only; a real service would look users up and compare hashes.
const users = new Map([
  ['harbormaster@example.com', { id: 'u-1', password: 'correct-horse', roles: ['admin'] }],
  ['skipper@example.com', { id: 'u-2', password: 'battery-staple', roles: [] }],
]);

passport.use(
  new LocalStrategy({ usernameField: 'email' }, (email, password, done) => {
    const user = users.get(email);
    if (!user || user.password !== password) return done(null, false);
    return done(null, { id: user.id, email, roles: user.roles });
  }),
);

const router = Router();

router.post('/login', passport.authenticate('local', { session: false }), (req, res) => {
  res.json({ token: issueToken(req.user), user: { id: req.user.id, email: req.user.email } });
});

router.post(
  '/register',
  body('email').isEmail().normalizeEmail(),
  body('password').isLength({ min: 10 }),
  body('name').optional().trim().isLength({ max: 80 }),
  (req, res) => {
    const result = validationResult(req);
    if (!result.isEmpty()) {
      return res.status(422).json({ error: 'invalid registration', issues: result.array() });
    }
    if (users.has(req.body.email)) {
      return res.status(409).json({ error: 'email already registered' });
    }
    const id = `u-${users.size + 1}`;
    users.set(req.body.email, { id, password: req.body.password, roles: [] });
    res.status(201).json({ id, email: req.body.email });
  },
);

router.get('/me', requireAuth, (req, res) => {
  res.json({ id: req.user.id, roles: req.user.roles });
});

router.post('/logout', requireAuth, (req, res) => {
  res.sendStatus(204);
});

export default router;
