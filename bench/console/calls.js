// The calls the console's Request log, Usage and Keys pages make, as an operator and as key
// holders (one with the busiest key, one with a quiet one), with the filters the pages offer.
const q = (params) => {
  const search = new URLSearchParams(Object.entries(params).filter(([, v]) => v !== undefined && v !== null));
  return search.size ? `?${search}` : '';
};

/** Every call timed on its own: name, path, who makes it. */
export function pageCalls({ world, sample, from7, from30, now, nextBefore, busyNextBefore, entryId }) {
  const day10 = new Date(now - 10 * 86_400_000);
  const dayStart = new Date(Date.UTC(day10.getUTCFullYear(), day10.getUTCMonth(), day10.getUTCDate()));
  const oneDay = { from: dayStart.toISOString(), to: new Date(dayStart.getTime() + 86_400_000).toISOString() };
  const log = (params) => `/admin/api/requests${q({ limit: 50, ...params })}`;
  const usage = (params) => `/admin/api/usage${q(params)}`;
  return [
    // Keys page (and the key pickers of the Request log and Usage pages)
    { name: 'keys list (operator, 200 keys)', path: '/admin/api/keys', as: 'operator' },
    { name: 'users list', path: '/admin/api/users', as: 'operator' },
    { name: 'models', path: '/console/api/models', as: 'operator' },
    { name: 'keys list (key holder)', path: '/console/api/keys', as: 'busyUser' },
    { name: 'keys page (25, revoked hidden)', path: `/admin/api/keys${q({ limit: 25, include_revoked: 'false' })}`, as: 'operator' },
    { name: 'keys search', path: `/admin/api/keys${q({ q: 'key 1', limit: 25, include_revoked: 'false' })}`, as: 'operator' },
    // Request log
    { name: 'requests, newest', path: log({}), as: 'operator' },
    { name: 'requests, next page', path: log({ before: nextBefore }), as: 'operator' },
    { name: 'requests of the busiest key', path: log({ key: world.busiest.id }), as: 'operator' },
    { name: 'requests of the busiest key, next page', path: log({ key: world.busiest.id, before: busyNextBefore }), as: 'operator' },
    { name: 'requests of a quiet key', path: log({ key: world.quietKey.id }), as: 'operator' },
    { name: 'requests of a quiet user', path: log({ user: world.quietUser.id }), as: 'operator' },
    { name: 'requests of the busiest user', path: log({ user: world.busyUser.id }), as: 'operator' },
    { name: 'requests of a rare model', path: log({ model: 'rare-model-preview' }), as: 'operator' },
    { name: 'requests of one channel', path: log({ channel: 'zhipu-main' }), as: 'operator' },
    { name: 'requests, status=error', path: log({ status: 'error' }), as: 'operator' },
    { name: 'requests, status=429', path: log({ status: '429' }), as: 'operator' },
    { name: 'requests, status=5xx', path: log({ status: '5xx' }), as: 'operator' },
    { name: 'requests, error_code=upstream_unavailable', path: log({ error_code: 'upstream_unavailable' }), as: 'operator' },
    { name: 'requests, error_code=rate_limit_exceeded', path: log({ error_code: 'rate_limit_exceeded' }), as: 'operator' },
    { name: 'requests, by request id', path: log({ request_id: sample.request_id }), as: 'operator' },
    { name: 'requests, one day 10 days ago', path: log(oneDay), as: 'operator' },
    { name: 'request detail', path: `/admin/api/requests/${entryId}`, as: 'operator' },
    { name: 'requests CSV of a quiet key', path: `/admin/api/requests.csv${q({ key: world.quietKey.id })}`, as: 'operator' },
    { name: 'requests CSV, error_code=upstream_unavailable, one day', path: `/admin/api/requests.csv${q({ error_code: 'upstream_unavailable', ...oneDay })}`, as: 'operator' },
    { name: 'requests (busiest key holder)', path: `/console/api/requests${q({ limit: 50 })}`, as: 'busyUser' },
    { name: 'requests (quiet key holder)', path: `/console/api/requests${q({ limit: 50 })}`, as: 'quietUser' },
    // Usage
    { name: 'usage 7 days by day (page default)', path: usage({ from: from7, group_by: 'day' }), as: 'operator' },
    { name: 'usage 7 days by key (page default)', path: usage({ from: from7, group_by: 'key' }), as: 'operator' },
    { name: 'usage 30 days by key', path: usage({ from: from30, group_by: 'key' }), as: 'operator' },
    { name: 'usage 30 days by user', path: usage({ from: from30, group_by: 'user' }), as: 'operator' },
    { name: 'usage 30 days by model', path: usage({ from: from30, group_by: 'model' }), as: 'operator' },
    { name: 'usage 30 days by channel', path: usage({ from: from30, group_by: 'channel' }), as: 'operator' },
    { name: 'usage 30 days by day', path: usage({ from: from30, group_by: 'day' }), as: 'operator' },
    { name: 'usage 30 days by hour', path: usage({ from: from30, group_by: 'hour' }), as: 'operator' },
    { name: 'usage 30 days, busiest key by model', path: usage({ from: from30, key: world.busiest.id, group_by: 'model' }), as: 'operator' },
    { name: 'usage 30 days, busiest user by model', path: usage({ from: from30, user: world.busyUser.id, group_by: 'model' }), as: 'operator' },
    { name: 'usage 30 days by user × model', path: usage({ from: from30, group_by: 'user_model' }), as: 'operator' },
    { name: 'usage 30 days by key × model', path: usage({ from: from30, group_by: 'key_model' }), as: 'operator' },
    { name: 'usage CSV 30 days by user', path: `/admin/api/usage.csv${q({ from: from30, group_by: 'user' })}`, as: 'operator' },
    { name: 'usage 7 days by day (key holder)', path: `/console/api/usage${q({ from: from7, group_by: 'day' })}`, as: 'busyUser' },
    { name: 'usage 7 days by model (key holder)', path: `/console/api/usage${q({ from: from7, group_by: 'model' })}`, as: 'busyUser' },
  ];
}

/** What each page loads at once when it opens (as the browser does). */
export function pages({ from7 }) {
  const common = [
    { path: '/console/api/models', as: 'operator' },
    { path: '/admin/api/keys', as: 'operator' },
  ];
  return [
    { name: 'Keys', calls: [{ path: '/console/api/models', as: 'operator' }, { path: `/admin/api/keys${q({ limit: 25, include_revoked: 'false' })}`, as: 'operator' }, { path: '/admin/api/users', as: 'operator' }] },
    { name: 'Request log', calls: [...common, { path: '/admin/api/requests?limit=50', as: 'operator' }] },
    {
      name: 'Usage',
      calls: [
        ...common,
        { path: '/admin/api/users', as: 'operator' },
        { path: `/admin/api/usage${q({ from: from7, group_by: 'day' })}`, as: 'operator' },
        { path: `/admin/api/usage${q({ from: from7, group_by: 'key' })}`, as: 'operator' },
      ],
    },
    {
      name: 'Usage (key holder)',
      calls: [
        { path: '/console/api/models', as: 'busyUser' },
        { path: '/console/api/keys', as: 'busyUser' },
        { path: `/console/api/usage${q({ from: from7, group_by: 'day' })}`, as: 'busyUser' },
        { path: `/console/api/usage${q({ from: from7, group_by: 'key' })}`, as: 'busyUser' },
      ],
    },
  ];
}
