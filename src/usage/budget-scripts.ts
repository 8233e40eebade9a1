/**
 * The Redis scripts of shared budgets (usage/shared-budget-holds.ts). One hash per key,
 * `gw:budget2:<key id>`:
 *   base      what the ledger held when the hash was seeded, plus every batch written since
 *   u:<inst>  what an instance has recorded for the key and not yet written to the ledger
 *   h:<inst>  the worst cases an instance holds for requests in flight
 * Spent is base + every u; held is every h whose instance is alive (`gw:instance:<inst>` exists):
 * a dead instance's holds stop counting when its lease lapses, and are removed by the next hold.
 * Each instance writes its own u and h as the figures it keeps itself, so writing them again is
 * harmless; only `base` is added to, by the script that moves a written batch out of u.
 */

/** Every script renews the hash: it lives an hour after the last change, then is seeded again. */
export const BUDGET_TTL_SECONDS = 3_600;

/**
 * KEYS[1] the hash. ARGV: instance, budget, worst case, pending video, this instance's other
 * holds (its own h field is replaced by this figure), instance key prefix, ttl.
 * Returns {'seed'} when the hash has no base yet; else {'ok'|'refused', spent, held}.
 */
export const HOLD_SCRIPT = `
if redis.call('HEXISTS', KEYS[1], 'base') == 0 then return {'seed'} end
local fields = redis.call('HGETALL', KEYS[1])
local spent = 0
local held = tonumber(ARGV[4]) + tonumber(ARGV[5])
for i = 1, #fields, 2 do
  local name = fields[i]
  local kind = string.sub(name, 1, 2)
  local owner = string.sub(name, 3)
  if name == 'base' or kind == 'u:' then
    spent = spent + tonumber(fields[i + 1])
  elseif kind == 'h:' and owner ~= ARGV[1] then
    if redis.call('EXISTS', ARGV[6] .. owner) == 1 then held = held + tonumber(fields[i + 1])
    else redis.call('HDEL', KEYS[1], name) end
  end
end
local budget = tonumber(ARGV[2])
local worst = tonumber(ARGV[3])
if spent >= budget or spent + held + worst > budget then return {'refused', tostring(spent), tostring(held)} end
redis.call('HSET', KEYS[1], 'h:' .. ARGV[1], tostring(tonumber(ARGV[5]) + worst))
redis.call('EXPIRE', KEYS[1], ARGV[7])
return {'ok', tostring(spent), tostring(held)}
`;

/**
 * KEYS[1] the hash. ARGV: instance, its held figure, its unwritten figure, ttl, instance key
 * prefix. Zero figures are removed. Returns {spent, held} as they stand (nothing for an unseeded hash).
 */
export const SET_OWN_SCRIPT = `
local function put(name, value)
  if math.abs(tonumber(value)) < 1e-12 then redis.call('HDEL', KEYS[1], name) else redis.call('HSET', KEYS[1], name, value) end
end
put('h:' .. ARGV[1], ARGV[2])
put('u:' .. ARGV[1], ARGV[3])
redis.call('EXPIRE', KEYS[1], ARGV[4])
if redis.call('HEXISTS', KEYS[1], 'base') == 0 then return {} end
local fields = redis.call('HGETALL', KEYS[1])
local spent, held = 0, 0
for i = 1, #fields, 2 do
  local name = fields[i]
  local kind = string.sub(name, 1, 2)
  if name == 'base' or kind == 'u:' then spent = spent + tonumber(fields[i + 1])
  elseif kind == 'h:' and redis.call('EXISTS', ARGV[5] .. string.sub(name, 3)) == 1 then held = held + tonumber(fields[i + 1]) end
end
return {tostring(spent), tostring(held)}
`;

/**
 * A batch is in the ledger: its cost moves from u to base (where the hash has a base; an
 * unseeded one reads the ledger when it is seeded). KEYS: the hashes. ARGV: instance, its write
 * counter key, its writing flag key, ttl, then per hash the amount moved and its new u figure.
 * The write counter goes up and the flag goes: a seed that overlapped this write tries again.
 */
export const MOVE_SCRIPT = `
for i = 1, #KEYS do
  local moved = ARGV[3 + i * 2]
  local left = ARGV[4 + i * 2]
  if redis.call('HEXISTS', KEYS[i], 'base') == 1 then redis.call('HINCRBYFLOAT', KEYS[i], 'base', moved) end
  if math.abs(tonumber(left)) < 1e-12 then redis.call('HDEL', KEYS[i], 'u:' .. ARGV[1]) else redis.call('HSET', KEYS[i], 'u:' .. ARGV[1], left) end
  redis.call('EXPIRE', KEYS[i], ARGV[4])
end
redis.call('INCR', ARGV[2])
redis.call('EXPIRE', ARGV[2], ARGV[4])
redis.call('DEL', ARGV[3])
return 'ok'
`;

/**
 * The instances whose batches can change a key's ledger sum: those with an unwritten figure in
 * its hash. KEYS[1] the hash. ARGV: instance key prefix, write counter prefix, writing flag
 * prefix. Returns {id, counter, writing} per such instance that is alive.
 */
export const WRITERS_SCRIPT = `
local out = {}
local fields = redis.call('HKEYS', KEYS[1])
for _, name in ipairs(fields) do
  if string.sub(name, 1, 2) == 'u:' then
    local id = string.sub(name, 3)
    if redis.call('EXISTS', ARGV[1] .. id) == 1 then
      table.insert(out, id)
      table.insert(out, redis.call('GET', ARGV[2] .. id) or '0')
      table.insert(out, tostring(redis.call('EXISTS', ARGV[3] .. id)))
    end
  end
end
return out
`;

/**
 * KEYS[1] the hash. ARGV: the ledger's sum, ttl, instance key prefix, write counter prefix,
 * writing flag prefix, force ('1': seed whatever happened, a write may then count twice: too
 * much, never too little), then {id, counter, writing} per writer as read before the ledger was.
 * Sets base only if none of the key's writers wrote a batch meanwhile ('retry' otherwise).
 */
export const SEED_SCRIPT = `
if redis.call('HEXISTS', KEYS[1], 'base') == 1 then return 'exists' end
if ARGV[6] ~= '1' then
  local seen = {}
  for i = 7, #ARGV, 3 do seen[ARGV[i]] = ARGV[i + 1] end
  for _, name in ipairs(redis.call('HKEYS', KEYS[1])) do
    local id = string.sub(name, 3)
    if string.sub(name, 1, 2) == 'u:' and redis.call('EXISTS', ARGV[3] .. id) == 1 then
      if redis.call('EXISTS', ARGV[5] .. id) == 1 then return 'retry' end
      if seen[id] ~= (redis.call('GET', ARGV[4] .. id) or '0') then return 'retry' end
    end
  end
end
redis.call('HSET', KEYS[1], 'base', ARGV[1])
redis.call('EXPIRE', KEYS[1], ARGV[2])
return 'ok'
`;
