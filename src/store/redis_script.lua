-- llmgate's Redis store: every operation on one provider's accounts as one atomic step, with the time
-- from Redis. The window is src/limiter/window.c's: LG_WINDOW_BUCKETS sub-buckets per span (window +
-- margin), every run of B+1 consecutive buckets kept within the limits, reservations placed in the bucket
-- of their time (FIFO: a later admission only finds room after those already placed), a bucket holding
-- places at its first ms only marked (z equal to its requests) as window.c's at_start.
-- KEYS[1]: the provider hash (field cur); KEYS[2..n+1]: the account hashes. Account fields: cu rs fl le pr
-- (policy state; pr: the probe lease, src/limiter/policy.c's probe_until_ms), sp wm l0 l1 ll0 ll1 cl0 cl1 cx0 cx1 (window, limits, provider caps), W
-- (every bucket's requests, tokens and mark z: z while every place of the bucket is at its first ms, none
-- otherwise; see load), qv (the layout), o<bucket>:<tokens>:<owner> (owners of places reserved ahead), n_* (counters).
-- ARGV[1]: op; ARGV[2]: ttl ms; the rest per op. Returns {now_ms, ..., then cu rs fl le pr per account}.
local B, RING = 64, 512
local AHEAD = RING - 2 * B - 1
local op, ttl = ARGV[1], tonumber(ARGV[2])
local tm = redis.call('TIME')
local now = tonumber(tm[1]) * 1000 + math.floor(tonumber(tm[2]) / 1000)
local n = #KEYS - 1

-- floor(x / y) for integers below 2^53 and y > 0, exact where the division rounds.
local function fdiv(x, y)
  local q = math.floor(x / y)
  if q * y > x then q = q - 1 elseif (q + 1) * y <= x then q = q + 1 end
  return q
end
local function epoch_of(t, span) return fdiv(t * B, span) end
local function start_of(k, span) return -fdiv(-k * span, B) end

-- Layout 2 (issue 33): an account's buckets are one field W instead of a field per bucket: in rising epoch
-- order, "<epoch>,<requests>,<tokens>" or, for a bucket marked as window.c's at_start (every place at its
-- first ms), "<epoch>,<requests>*<tokens>", space-separated, each epoch but the first written as its
-- distance from the one before (short to read). The field qv holds the layout. Its name stops an older
-- script (layout 1 reads every q<number> field into a table by that number, and 'v' is none: its script
-- fails and its process falls back to its machine's store, with its one line); a hash of layout 1 this
-- script meets is folded into W (the old fields dropped); a hash of a layout this script does not know is
-- never written (an error reply: this process falls back).
local LAYOUT = 2
-- Stops the call (an error reply, nothing written) on a hash of a layout this script does not know.
local function known_layout(lv)
  if lv and lv ~= LAYOUT then
    error('llmgate: this Redis holds llmgate layout ' .. lv .. ' (this llmgate writes ' .. LAYOUT .. '): left to it', 0)
  end
end
local function load(i)
  local raw = redis.call('HGETALL', KEYS[i + 2])
  local a = {f = {}, q = {}, k = {}, z = {}, o = {}, w = {}, d = {}, key = KEYS[i + 2], top = -math.huge}
  local q, k, z, top, lv = a.q, a.k, a.z, -math.huge, nil
  for j = 1, #raw, 2 do
    local name = raw[j]
    local c = string.byte(name, 1)
    if name == 'W' then
      local e = 0
      for de, rq, mark, rk in string.gmatch(raw[j + 1], '(%-?%d+),(%d+)([,*])(%d+)') do
        e = e + de
        rq = rq + 0
        q[e], k[e] = rq, rk + 0
        if mark == '*' then z[e] = rq end
      end
      if e > top and raw[j + 1] ~= '' then top = e end
    elseif c == 111 then a.o[name] = tonumber(raw[j + 1]) or 0 -- 'o': an owner's places
    elseif name == 'qv' then lv = tonumber(raw[j + 1])
    elseif c == 113 or c == 107 or c == 122 then -- 'q' 'k' 'z': a bucket of layout 1, folded into W
      local e = tonumber(string.sub(name, 2))
      if e then
        local t = c == 113 and q or c == 107 and k or z
        t[e] = tonumber(raw[j + 1]) or 0
        if c ~= 122 then
          if e > top then top = e end
          if t == q and not k[e] then k[e] = 0 elseif t == k and not q[e] then q[e] = 0 end
        end
        a.d[name], a.dirty = true, true
      end
    else a.f[name] = tonumber(raw[j + 1]) or 0 end
  end
  known_layout(lv)
  a.fresh = not lv -- qv is written with the hash's first write
  a.top = top -- window.c's top: no bucket after it holds anything
  return a
end
local function g(a, name) return a.f[name] or 0 end
-- Writes are collected per account (w: fields to set, d: fields to delete) and sent once by flush.
local function put(a, name, v) a.w[name] = v; a.d[name] = nil end
local function set(a, name, v) a.f[name] = v; put(a, name, v) end
local function del(a, name) a.w[name] = nil; a.d[name] = true end
-- W of the account's buckets (rising epochs).
local function pack(a)
  local es, parts = {}, {}
  for e, q in pairs(a.q) do -- an empty bucket not marked is as none
    if q ~= 0 or (a.k[e] or 0) ~= 0 or a.z[e] == q then es[#es + 1] = e end
  end
  table.sort(es)
  local last = 0
  for i, e in ipairs(es) do
    local q = a.q[e]
    parts[i] = string.format(a.z[e] == q and '%d,%d*%d' or '%d,%d,%d', e - last, q, a.k[e] or 0)
    last = e
  end
  return table.concat(parts, ' ')
end
local function flush(a)
  if a.dirty then a.w.W = pack(a); a.dirty = false end
  if a.fresh and (next(a.w) or next(a.d)) then a.w.qv = LAYOUT; a.fresh = false end
  local args = {}
  for name in pairs(a.d) do args[#args + 1] = name end
  if #args > 0 then redis.call('HDEL', a.key, unpack(args)) end
  args = {}
  for name, v in pairs(a.w) do args[#args + 1] = name; args[#args + 1] = v end
  if #args > 0 then redis.call('HSET', a.key, unpack(args)) end
  a.w, a.d = {}, {}
end

-- limits: {[0] = requests, [1] = tokens, w = window, m = margin}, the learned ones where none is set.
local function limits_for(a, cfg)
  local l = {[0] = cfg[0], [1] = cfg[1], w = cfg.w, m = cfg.m}
  for d = 0, 1 do if l[d] <= 0 then l[d] = g(a, 'll' .. d) end end
  return l
end
local function span_of(l)
  local s = l.w + (l.m > 0 and l.m or 0)
  return s > 0 and s or 1
end
-- window.c's starts_only: every place of bucket e is at its first ms.
local function starts_only(a, same, e) return same and a.q[e] ~= nil and a.z[e] == a.q[e] end

-- Whether dimension d (0 requests, 1 tokens) can bind: every bucket the account keeps (old ones too) and
-- `more` together exceed its limit lim. Where they do not, no run of buckets can, and the scans leave d out
-- (a provider's token limit, learned from its headers, is often far above what its requests can use).
local function binds(a, d, more, lim)
  if lim <= 0 then return false end
  local sum = more
  for _, v in pairs(d == 0 and a.q or a.k) do sum = sum + v end
  return sum > lim
end
local NONE = {}

-- lg_window_earliest: returns at, retry (retry > 0: at is a lower bound, ask again after retry ms).
local function earliest(a, l, tokens, not_before)
  local span = span_of(l)
  local start = not_before > now and not_before or now
  local need = {[0] = 1, [1] = tokens > 0 and tokens or 0}
  if l[1] > 0 and need[1] > l[1] then need[1] = l[1] end
  for d = 0, 1 do
    if g(a, 'cx' .. d) > start and g(a, 'cl' .. d) < need[d] then start = g(a, 'cx' .. d) end
  end
  local k_now = epoch_of(now, span)
  local k_max, k0 = k_now + AHEAD, epoch_of(start, span)
  if k0 > k_max then return start, start_of(k0 - AHEAD, span) - now end
  local same = g(a, 'sp') == span
  local q, k, L0, L1, N0, N1 = a.q, a.k, l[0], l[1], need[0], need[1]
  if not binds(a, 0, N0, L0) then q, L0 = NONE, 0 end
  if not binds(a, 1, N1, L1) then k, L1 = NONE, 0 end
  if L0 <= 0 and L1 <= 0 then return start, 0 end
  local s0, s1 = 0, 0 -- the buckets k0-B .. k0-1 (none of another span)
  if same then
    for e, v in pairs(q) do if e >= k0 - B and e < k0 then s0 = s0 + v end end
    for e, v in pairs(k) do if e >= k0 - B and e < k0 then s1 = s1 + v end end
  end
  if same and a.top <= k0 then -- window.c's fast path: the fullest run through k0 ends at k0
    local r0, r1 = s0 + (q[k0] or 0), s1 + (k[k0] or 0)
    if starts_only(a, true, k0 - B) then r0 = r0 - (q[k0 - B] or 0); r1 = r1 - (k[k0 - B] or 0) end
    if (L0 <= 0 or r0 + N0 <= L0) and (L1 <= 0 or r1 + N1 <= L1) then return start, 0 end
  end
  -- window.c's scan, visiting only the j where a run's sum changes (a held bucket e enters the run [j, j+B]
  -- at j = e - B and leaves it at j = e + 1): between two such, every run is as full, so the stretch is
  -- decided at once (all over the limit, or its first j out of the last full run's reach fits).
  local moves = {}
  if same then
    for _, t in ipairs({q, k}) do
      for e, v in pairs(t) do
        if v ~= 0 then moves[#moves + 1] = e - B; moves[#moves + 1] = e + 1 end
      end
    end
    table.sort(moves)
  end
  local last_bad, i, j = k0 - B - 1, 1, k0 - B
  while j <= k_max do -- s0, s1 become the run [j, j+B]
    local before = last_bad
    if same then
      s0 = s0 + (q[j + B] or 0); s1 = s1 + (k[j + B] or 0)
      if j > k0 - B then s0 = s0 - (q[j - 1] or 0); s1 = s1 - (k[j - 1] or 0) end
    end
    if (L0 > 0 and s0 + N0 > L0) or (L1 > 0 and s1 + N1 > L1) then last_bad = j end
    if j >= k0 and (before < j - B or (before == j - B and starts_only(a, same, j - B))) then
      local sj = start_of(j, span)
      local t = j == k0 and start or sj
      if last_bad ~= j or t == sj then return t, 0 end
    end
    while moves[i] and moves[i] <= j do i = i + 1 end
    local next_j = moves[i] and moves[i] <= k_max and moves[i] or k_max + 1
    if last_bad == j then
      last_bad = next_j - 1
    else
      local f = last_bad + B + (starts_only(a, same, last_bad) and 0 or 1)
      if f <= j then f = j + 1 end
      if f < k0 then f = k0 end
      if f < next_j then return f == k0 and start or start_of(f, span), 0 end
    end
    j = next_j
  end
  return start_of(k_max + 1, span), start_of(k_now + 1, span) - now
end

-- A window counted in buckets of another span (or none yet) starts again empty in buckets of span.
local function respan(a, span)
  if g(a, 'sp') == span then return end
  a.q, a.k, a.z, a.top, a.dirty = {}, {}, {}, -math.huge, true
  set(a, 'sp', span)
end

-- lg_window_reserve: returns the ticket (bucket epoch).
local function reserve(a, l, tokens, at)
  local span = span_of(l)
  respan(a, span)
  local e = epoch_of(at, span)
  local need = {[0] = 1, [1] = tokens > 0 and tokens or 0}
  local marked = at == start_of(e, span) and (((a.q[e] or 0) == 0 and (a.k[e] or 0) == 0) or starts_only(a, true, e))
  a.q[e] = (a.q[e] or 0) + need[0]
  a.k[e] = (a.k[e] or 0) + need[1]
  a.dirty = true
  if marked then a.z[e] = a.q[e] elseif a.z[e] then a.z[e] = nil end
  if e > a.top then a.top = e end
  for d = 0, 1 do
    if g(a, 'cx' .. d) > at then
      local left = g(a, 'cl' .. d)
      set(a, 'cl' .. d, left > need[d] and left - need[d] or 0)
    end
    set(a, 'l' .. d, l[d])
  end
  set(a, 'wm', l.w)
  return e
end

-- lg_window_adjust: never below zero; nothing when the bucket is gone.
local function adjust(a, ticket, dq, dk)
  if g(a, 'sp') <= 0 or a.q[ticket] == nil then return end
  local marked = a.z[ticket] == a.q[ticket] -- the times stay; a mark lost (a lease's places) stays lost
  local q, k = a.q[ticket] + dq, (a.k[ticket] or 0) + dk
  a.q[ticket], a.k[ticket] = q > 0 and q or 0, k > 0 and k or 0
  a.dirty = true
  if marked then a.z[ticket] = a.q[ticket] elseif a.z[ticket] then a.z[ticket] = nil end
end

-- Owners of the places reserved ahead (issue 33, item 3). An owner is '<host>.<pid>.<start>' (src/store/
-- owner.c: the machine, the process, its start time). A place reserved for later is recorded on its account
-- as field o<bucket>:<tokens>:<owner> (how many), dropped when its owner confirms, releases, is recorded on
-- it or gives it back at its next admission. An admission gives back the places of the owners its caller
-- found dead (a process on the caller's machine, checked there by pid), and of any owner that has not
-- confirmed OWNER_GRACE ms after its place began (a waiter on another machine that died); it reports the
-- other owners of the caller's machine it saw, for the caller to check. A confirm that finds its record gone
-- was given back: the waiter asks again.
local OWNER_GRACE = 5000
local function owner_field(bucket, tokens, owner) return 'o' .. bucket .. ':' .. tokens .. ':' .. owner end
local function hold(a, bucket, tokens, owner)
  local f = owner_field(bucket, tokens, owner)
  a.o[f] = (a.o[f] or 0) + 1
  put(a, f, a.o[f])
end
-- Drops one record of owner's place; false when there was none.
local function unhold(a, bucket, tokens, owner)
  local f = owner_field(bucket, tokens, owner)
  local c = a.o[f]
  if not c then return false end
  if c > 1 then a.o[f] = c - 1; put(a, f, c - 1) else a.o[f] = nil; del(a, f) end
  return true
end
-- Gives back the places of dead owners (dead: a set of owners; me: the caller); adds the other owners of
-- host (the caller's machine) still holding places to seen.
local function reap(a, host, me, dead, seen)
  local span = g(a, 'sp')
  for f, c in pairs(a.o) do
    local bucket, tokens, owner = string.match(f, '^o(-?%d+):(-?%d+):(.+)$')
    bucket, tokens = tonumber(bucket), tonumber(tokens)
    if not owner then
      a.o[f] = nil; del(a, f)
    elseif owner ~= me then
      if dead[owner] or span <= 0 or start_of(bucket, span) + OWNER_GRACE < now then
        adjust(a, bucket, -c, -c * (tokens > 0 and tokens or 0))
        a.o[f] = nil; del(a, f)
      elseif string.sub(owner, 1, #host + 1) == host .. '.' then
        seen[owner] = true
      end
    end
  end
end

-- Refreshes a key's time to live once it has run down by an eighth (not on every call: a write).
local function expire(key)
  if redis.call('PTTL', key) < ttl - ttl / 8 then redis.call('PEXPIRE', key, ttl) end
end
-- Writes what changed, refreshes the key's time to live. Buckets no window can read any more are dropped
-- when the buckets are written anyway (a call that only reads them, a refusal, leaves them: no scan reads
-- them, and rewriting W for them alone was a refusal's largest write).
local function tidy(a)
  local span = g(a, 'sp')
  if span > 0 and a.dirty then
    local old = epoch_of(now, span) - B - 1
    for e in pairs(a.q) do if e < old then a.q[e], a.k[e], a.z[e], a.dirty = nil, nil, nil, true end end
  end
  flush(a)
  expire(a.key)
end

-- lg_policy_ready_at: after the cooldown shifted by the request's jitter (a tenth of the cooldown, 50 ms ...
-- 1 s), and while another request probes the key, after its outcome (looked at again every 250 ms).
local PROBE_LEASE, PROBE_POLL, JITTER_MIN, JITTER_MAX = 10000, 250, 50, 1000
local function ready_at(a, jitter)
  local cu, pr = g(a, 'cu'), g(a, 'pr')
  if cu > now then
    local len = g(a, 'le') > 0 and cu - g(a, 'le') or 0
    local spread = math.floor(len / 10)
    if spread < JITTER_MIN then spread = JITTER_MIN elseif spread > JITTER_MAX then spread = JITTER_MAX end
    return cu + math.floor(jitter * spread)
  end
  if pr > now then return (pr - now < PROBE_POLL) and pr or now + PROBE_POLL end
  return now
end
-- lg_policy_claim_probe: a key that failed and has not succeeded since gets one probe at a time.
local function claim_probe(a)
  if g(a, 'rs') == 0 or g(a, 'cu') > now or g(a, 'pr') > now then return end
  set(a, 'pr', now + PROBE_LEASE)
end

-- Accounts are read on first use: accts[i] (0-based) loads the whole hash.
local accts = setmetatable({}, {__index = function(t, i)
  if type(i) ~= 'number' or i < 0 or i >= n or i ~= math.floor(i) then return nil end
  local a = load(i)
  rawset(t, i, a)
  return a
end})

-- Writes every account read (the only ones that can have changed).
local function finish()
  for i = 0, n - 1 do local a = rawget(accts, i); if a then tidy(a) end end
end

-- Appends every account's policy state to out (HMGET for those not read otherwise).
local function states(out)
  for i = 0, n - 1 do
    local a = rawget(accts, i)
    if a then
      out[#out + 1] = g(a, 'cu'); out[#out + 1] = g(a, 'rs')
      out[#out + 1] = g(a, 'fl'); out[#out + 1] = g(a, 'le'); out[#out + 1] = g(a, 'pr')
    else
      local v = redis.call('HMGET', KEYS[i + 2], 'cu', 'rs', 'fl', 'le', 'pr')
      for j = 1, 5 do out[#out + 1] = tonumber(v[j]) or 0 end
    end
  end
  return out
end

if op == 'admit' then
  -- ARGV: 3 l0, 4 l1, 5 window, 6 margin, 7 tokens, 8 preferred (-1: current), 9 deadline (from now),
  --       10 held, 11 ticket account, 12 ticket bucket, 13 tokens held, 14 jitter, 15 longest cooldown,
  --       16 usable accounts (a string of 0/1, the pool filter), 17 the counter to count on an account
  --       admitted to go now ('': none), 18 the caller (an owner), 19 owners found dead (space-separated)
  local cfg = {[0] = tonumber(ARGV[3]), [1] = tonumber(ARGV[4]), w = tonumber(ARGV[5]), m = tonumber(ARGV[6])}
  local tokens, preferred, deadline = tonumber(ARGV[7]), tonumber(ARGV[8]), now + tonumber(ARGV[9])
  local jitter, cap, usable = tonumber(ARGV[14]), tonumber(ARGV[15]), ARGV[16]
  local me, dead, seen = ARGV[18], {}, {}
  local host = string.match(me, '^[^.]*')
  for o in string.gmatch(ARGV[19], '%S+') do dead[o] = true end
  local function visit(i) -- an account, its dead owners' places given back on first sight
    local a = accts[i]
    if a and not a.reaped then a.reaped = true; reap(a, host, me, dead, seen) end
    return a
  end
  local held = ARGV[10] == '1' and visit(tonumber(ARGV[11]))
  if held then
    unhold(held, tonumber(ARGV[12]), tonumber(ARGV[13]), me)
    adjust(held, tonumber(ARGV[12]), -1, -tonumber(ARGV[13]))
  end
  local function ok_to_use(i) return string.sub(usable, i + 1, i + 1) ~= '0' end
  local cur = tonumber(redis.call('HGET', KEYS[1], 'cur') or 0) or 0
  local pref = (preferred >= 0 and preferred < n) and preferred or (cur < n and cur or 0)
  for step = 0, n - 1 do
    if ok_to_use((pref + step) % n) then pref = (pref + step) % n; break end
  end
  local best, best_at, best_retry = pref, 0, 0
  for step = 0, n - 1 do
    local i = (pref + step) % n
    if ok_to_use(i) then
      local a = visit(i)
      if g(a, 'cu') > now + cap then set(a, 'cu', now + cap) end -- lg_policy_clamp_cooldown
      local at, retry = earliest(a, limits_for(a, cfg), tokens, ready_at(a, jitter))
      local better = i == pref or (retry == 0 and best_retry ~= 0) or
                     ((retry == 0) == (best_retry == 0) and at < best_at)
      if better then best, best_at, best_retry = i, at, retry end
      if retry == 0 and at <= now then break end
    end
  end
  local reserved, ticket = 0, 0
  if best_retry == 0 and best_at <= deadline then
    ticket = reserve(accts[best], limits_for(accts[best], cfg), tokens, best_at)
    reserved = 1
    if best_at > now then hold(accts[best], ticket, tokens, me) end
    if best_at <= now then
      claim_probe(accts[best])
      if ARGV[17] ~= '' then set(accts[best], ARGV[17], g(accts[best], ARGV[17]) + 1) end
    end
  end
  if g(accts[pref], 'cu') > now and g(accts[best], 'cu') <= now then
    redis.call('HSET', KEYS[1], 'cur', best)
  end
  expire(KEYS[1])
  finish()
  local others = {}
  for o in pairs(seen) do others[#others + 1] = o end
  local out = states({now, best, best_at, reserved, best_retry, ticket})
  out[#out + 1] = table.concat(others, ' ')
  return out
elseif op == 'confirm' then
  -- ARGV: 3 idx, 4 held, 5 ticket account, 6 ticket bucket, 7 tokens, 8 jitter, 9 the caller (an owner)
  local a = accts[tonumber(ARGV[3])]
  local ok = a ~= nil and ready_at(a, tonumber(ARGV[8])) <= now
  local held = ARGV[4] == '1' and accts[tonumber(ARGV[5])]
  if held and not unhold(held, tonumber(ARGV[6]), tonumber(ARGV[7]), ARGV[9]) then
    ok, held = false, nil -- given back as a dead owner's: asked again
  end
  if ok then claim_probe(a) end
  if not ok and held then
    adjust(held, tonumber(ARGV[6]), -1, -tonumber(ARGV[7]))
  end
  finish()
  return states({now, ok and 1 or 0})
elseif op == 'release' then
  -- ARGV: 3 ticket account, 4 ticket bucket, 5 tokens, 6 the caller (an owner)
  local a = accts[tonumber(ARGV[3])]
  if a then
    unhold(a, tonumber(ARGV[4]), tonumber(ARGV[5]), ARGV[6])
    adjust(a, tonumber(ARGV[4]), -1, -tonumber(ARGV[5]))
  end
  finish()
  return {now}
elseif op == 'record' then
  -- ARGV: 3 idx, 4 transport failed, 5 ticket held on idx, 6 ticket bucket, 7 d requests, 8 d tokens,
  --       9 cu, 10 rs, 11 fl, 12 le (cu, le: ms from now, or 'none'), 13 clear (success), 14 rate limited,
  --       15..20 learned: limit0 limit1 remaining0 remaining1 reset0 reset1 (-1: not reported),
  --       21 the caller (an owner), 22 the ticket's tokens
  local a = accts[tonumber(ARGV[3])]
  if a then
    set(a, 'n_requests', g(a, 'n_requests') + 1)
    set(a, 'pr', 0) -- an outcome, or a transport failure, ends a probe
    if ARGV[4] == '0' then
      local cu = ARGV[9] == 'none' and 0 or now + tonumber(ARGV[9])
      if ARGV[13] == '1' or cu >= g(a, 'cu') then
        set(a, 'cu', cu); set(a, 'rs', tonumber(ARGV[10]))
        set(a, 'le', ARGV[12] == 'none' and 0 or now + tonumber(ARGV[12]))
      end
      set(a, 'fl', tonumber(ARGV[11]))
      if ARGV[14] == '1' then set(a, 'n_rate_limited', g(a, 'n_rate_limited') + 1) end
      if ARGV[5] == '1' then
        unhold(a, tonumber(ARGV[6]), tonumber(ARGV[22]), ARGV[21])
        adjust(a, tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8]))
      end
      for d = 0, 1 do
        local lim, rem, reset = tonumber(ARGV[15 + d]), tonumber(ARGV[17 + d]), tonumber(ARGV[19 + d])
        if lim > 0 then set(a, 'll' .. d, lim) end
        if rem >= 0 and reset > 0 then set(a, 'cl' .. d, rem); set(a, 'cx' .. d, now + reset) end
      end
    end
  end
  finish()
  return states({now})
end
-- The lease op (src/store/redis_lease.lua) follows, then the reply to an unknown op.
