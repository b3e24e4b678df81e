// Bearer tokens are base64url-encoded JSON: { "sub": "...", "roles": ["..."] }.
// A real deployment would verify a signature; this keeps the example self-contained.

function decodeToken(token) {
  try {
    const claims = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
    if (typeof claims.sub !== 'string') return null;
    return { id: claims.sub, roles: Array.isArray(claims.roles) ? claims.roles : [] };
  } catch {
    return null;
  }
}

export function issueToken(user) {
  return Buffer.from(JSON.stringify({ sub: user.id, roles: user.roles ?? [] })).toString('base64url');
}

export function requireAuth(req, res, next) {
  const header = req.get('Authorization') ?? '';
  const [scheme, token] = header.split(' ');
  const user = scheme === 'Bearer' && token ? decodeToken(token) : null;
  if (!user) {
    return res.status(401).json({ error: 'authentication required' });
  }
  req.user = user;
  next();
}

export function requireRole(role) {
  return function checkRole(req, res, next) {
    if (!req.user) {
      return res.status(401).json({ error: 'authentication required' });
    }
    if (!req.user.roles.includes(role)) {
      return res.status(403).json({ error: `requires role ${role}` });
    }
    next();
  };
}
