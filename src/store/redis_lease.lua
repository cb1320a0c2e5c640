-- llmgate's Redis store, its leases' part (include/llmgate/lease.h): the `lease` op, run after
-- src/store/redis_script.lua's ops in one script (the build puts the two files together, this one last),
-- with its window, policy state and helpers.
-- ---- Leases (include/llmgate/lease.h): a machine's block of one account's window ----
-- ARGV: 3 l0, 4 l1, 5 window, 6 margin, 7 tokens per request, 8 jitter, 9 longest cooldown, 10 the machine
--       (src/store/redis.c's machine_name), then per account asked for (the caller's order, first preferred
--       among equals) four: its index, requests asked for in all (0: nothing asked, only the return: a
--       process's exit, the machine's last on this account), its returned lease ("none", or
--       "<first bucket>;q,k;q,k;..." its unused part per bucket), the counters the machine kept
--       ("immediate,waited,requests").
-- Gives every returned lease's unused part back and adds the counters, then picks the account asked for
-- that is ready now (no cooldown or probe in force; a window of another span starts again) and where one request
-- fits soonest (after a provider's cap that leaves none), and places the requests asked for it (at most the
-- machine's fair share, fair_total) in the LEASE_N buckets from then, each bucket as much as every run of
-- B+1 buckets containing it still allows (and at most LEASE_DENSE times the key's even share) and the
-- buckets before a provider's cap ends no more than it leaves, and counts them there.
-- A grant starts no more than LEASE_AHEAD buckets (three leases' length, three quarters of a window) after
-- now's: where the soonest fit is later, nothing is placed and the caller is told when to ask again (the
-- window is then never promised more than a window ahead, which keeps each account's hash, its load and the
-- window's scan short, and leaves few places held by a machine that stops). At a fleet's saturation the
-- soonest fit is where the window's past places leave it (a sliding window frees room B+1 buckets after each
-- place): in the fleet bench (4 machines, 2 s windows) about half the calls are refusals, one bucket beyond
-- LEASE_AHEAD or 55-60 buckets ahead, and the refused machines' next asks are granted at LEASE_AHEAD.
-- Returns {now, account granted (-1: none), buckets granted (0: none), first bucket (nothing granted: when
-- to ask again, 0: never), span (nothing granted: when the soonest fit begins), then requests and tokens of
-- each of LEASE_N buckets, then cu rs fl le pr per account}.
local LEASE_N = 16
local LEASE_AHEAD = 3 * LEASE_N
-- A grant is dense: a bucket holds up to LEASE_DENSE times the key's even share of a window (the limit over
-- B buckets, at least 1), so a burst goes in a few buckets as it would without leases (paced at the even
-- share, the first window's width stayed in every window after it: a sliding window frees room where its
-- places were). It is short: a machine's fair share is a LEASE_SHARE-th of the limit, and a machine asks
-- again when its grant is used up, so the window's room goes round the machines asking in grants of about
-- that size.
local LEASE_DENSE, LEASE_SHARE = 3, 8
-- Fair shares between machines: per account, each machine's places granted and not given back (field
-- m<machine>) and when it was last granted (t<machine>; both dropped at its exit and FAIR_GONE spans after).
-- A machine's share is `base` less its lead on the mean of the machines granted within FAIR_SEEN spans (one
-- new to them, or back, starts at their mean), between a quarter of base and twice it: the first askers at
-- each burst's head no longer run ahead of the others for good, which a fleet with a fixed amount of work
-- pays at its end.
local FAIR_SEEN, FAIR_GONE = 2, 8
local function fair_total(a, me, base, span)
  local sum, cnt = 0, 0
  for name, v in pairs(a.f) do
    if string.byte(name, 1) == 116 then -- 't'
      local id = string.sub(name, 2)
      if v < now - FAIR_GONE * span then
        del(a, name); del(a, 'm' .. id); a.f[name] = nil; a.f['m' .. id] = nil
      elseif v >= now - FAIR_SEEN * span and id ~= me then
        sum, cnt = sum + (a.f['m' .. id] or 0), cnt + 1
      end
    end
  end
  if cnt == 0 then return base end
  local mine = a.f['m' .. me]
  if not mine or (a.f['t' .. me] or 0) < now - FAIR_SEEN * span then
    mine = math.floor(sum / cnt)
    set(a, 'm' .. me, mine)
  end
  local share = base - (mine - math.floor((sum + mine) / (cnt + 1)))
  return math.min(math.max(share, math.max(1, math.floor(base / 4))), 2 * base)
end
local function lease_grant(a, l, ask, tok, at, me)
  local span = span_of(l)
  local e0, k_max = epoch_of(at, span), epoch_of(now, span) + AHEAD
  local n = LEASE_N
  if e0 + n - 1 > k_max then n = k_max - e0 + 1 end
  local dense, share = math.huge, math.huge
  for d = 0, 1 do
    local unit = d == 0 and 1 or tok
    if l[d] > 0 and unit > 0 then
      dense = math.min(dense, math.max(1, math.ceil(LEASE_DENSE * l[d] / B / unit)))
      share = math.min(share, math.max(1, math.floor(l[d] / LEASE_SHARE / unit)))
    end
  end
  local total = share < math.huge and math.min(ask, fair_total(a, me, share, span)) or ask
  -- Per dimension that can bind: base[j - e0], what the run of buckets j .. j+B holds before the grant (e0 <
  -- j < e0 + n); suf[j - e0], the most any run from j-B to e0 holds (runs are summed from e0's back to e0-B).
  -- A run s <= e0 holds every place granted so far (cum); a run s > e0 those granted from s on, so the
  -- fullest run containing bucket j is cum + max(suf[j - e0], max over e0 < s <= j of base[s - e0] - cum
  -- when s was reached): O(B + LEASE_N), the tables only as long as the grant.
  local w = {}
  for d = 0, 1 do
    if binds(a, d, total * (d == 0 and 1 or tok), l[d]) then
      local vals, sum = d == 0 and a.q or a.k, 0
      for e = e0, e0 + B do sum = sum + (vals[e] or 0) end
      local base, suf, run, top = {}, {}, sum, sum > 0 and sum or 0
      for j = e0 + 1, e0 + n - 1 do
        run = run + (vals[j + B] or 0) - (vals[j - 1] or 0)
        base[j - e0] = run
      end
      for s = e0 - 1, e0 - B, -1 do
        sum = sum + (vals[s] or 0) - (vals[s + B + 1] or 0)
        if sum > top then top = sum end
        if s + B - e0 < n then suf[s + B - e0] = top end
      end
      w[d] = {base = base, suf = suf, cum = 0}
    end
  end
  -- a provider's cap in force (cl left until cx): the buckets that start before cx share what it leaves
  local left = {}
  for d = 0, 1 do if g(a, 'cx' .. d) > now then left[d] = g(a, 'cl' .. d) end end
  local got, per = 0, {}
  for j = e0, e0 + n - 1 do
    local q, capped = math.min(dense, total - got), {}
    for d = 0, 1 do
      local unit, r = d == 0 and 1 or tok, w[d]
      if r then
        if j > e0 then
          local v = r.base[j - e0] - r.cum
          if r.later == nil or v > r.later then r.later = v end
        end
        local top = r.suf[j - e0]
        if r.later and r.later > top then top = r.later end
        local room = l[d] - (top + r.cum)
        if d == 1 then room = tok > 0 and math.floor(room / tok) or q end
        if room < q then q = room end
      end
      if left[d] and g(a, 'cx' .. d) > start_of(j, span) then
        capped[d] = true
        if unit > 0 and math.floor(left[d] / unit) < q then q = math.floor(left[d] / unit) end
      end
    end
    if q < 0 then q = 0 end
    local need = {[0] = q, [1] = q * tok}
    if q > 0 then
      a.q[j] = (a.q[j] or 0) + need[0]; a.k[j] = (a.k[j] or 0) + need[1]
      a.dirty = true
      if j > a.top then a.top = j end
      for d = 0, 1 do
        if w[d] then w[d].cum = w[d].cum + need[d] end
        if capped[d] then left[d] = left[d] - need[d]; set(a, 'cl' .. d, left[d]) end
      end
    end
    per[#per + 1] = q; per[#per + 1] = need[1]
    got = got + q
  end
  if got == 0 then return 0, 0, {} end
  set(a, 'm' .. me, (a.f['m' .. me] or 0) + got)
  set(a, 't' .. me, now)
  for d = 0, 1 do set(a, 'l' .. d, l[d]) end
  set(a, 'wm', l.w)
  return n, e0, per
end

if op == 'lease' then
  local cfg = {[0] = tonumber(ARGV[3]), [1] = tonumber(ARGV[4]), w = tonumber(ARGV[5]), m = tonumber(ARGV[6])}
  local tok, jitter, cap, me = tonumber(ARGV[7]), tonumber(ARGV[8]), tonumber(ARGV[9]), ARGV[10]
  local names = {'n_immediate', 'n_waited', 'n_requests'}
  local exiting = true
  for c = 11, #ARGV - 3, 4 do if ARGV[c + 1] ~= '0' then exiting = false end end
  local best, best_at, best_ask = -1, 0, 0
  for c = 11, #ARGV - 3, 4 do
    local i = tonumber(ARGV[c])
    if i == nil or i < 0 or i >= n then return redis.error_reply('llmgate: no such account') end
    local e, back = string.match(ARGV[c + 2], '^(%-?%d+);(.*)$')
    -- an account not read yet that gives nothing back and is not needed (one asked for before it can take a
    -- request now) only has its counters added
    local a = rawget(accts, i)
    if not a and not e and best >= 0 and best_at <= now then
      if string.find(ARGV[c + 3], '[1-9]') then known_layout(tonumber(redis.call('HGET', KEYS[i + 2], 'qv'))) end
      local m = 1
      for v in string.gmatch(ARGV[c + 3], '%-?%d+') do
        if names[m] and tonumber(v) > 0 then redis.call('HINCRBY', KEYS[i + 2], names[m], v) end
        m = m + 1
      end
    else
      a = accts[i]
      local l = limits_for(a, cfg)
      local span = span_of(l)
      if e and g(a, 'sp') == span then
        local j, back_q = tonumber(e), 0
        for q, k in string.gmatch(back, '(%-?%d+),(%-?%d+)') do
          if q ~= '0' or k ~= '0' then
            adjust(a, j, -tonumber(q), -tonumber(k))
            back_q = back_q + tonumber(q)
          end
          j = j + 1
        end
        if a.f['m' .. me] then set(a, 'm' .. me, a.f['m' .. me] - back_q) end
      end
      local m = 1
      for v in string.gmatch(ARGV[c + 3], '%-?%d+') do
        v = tonumber(v)
        if names[m] and v > 0 then set(a, names[m], g(a, names[m]) + v) end
        m = m + 1
      end
      if g(a, 'cu') > now + cap then set(a, 'cu', now + cap) end -- lg_policy_clamp_cooldown
      if exiting then del(a, 'm' .. me); del(a, 't' .. me); a.f['m' .. me], a.f['t' .. me] = nil, nil end
      if tonumber(ARGV[c + 1]) > 0 and ready_at(a, jitter) <= now and g(a, 'rs') == 0 and
         not (best >= 0 and best_at <= now) then
        respan(a, span)
        local at, retry = earliest(a, l, tok, now)
        if retry == 0 and (best < 0 or at < best_at) then best, best_at, best_ask = i, at, tonumber(ARGV[c + 1]) end
      end
    end
  end
  local n, e0, per, span = 0, 0, {}, 0
  if best >= 0 then
    local l = limits_for(accts[best], cfg)
    span = span_of(l)
    local again = start_of(epoch_of(best_at, span) - LEASE_AHEAD, span)
    if again > now then
      e0, span = again, best_at
    else
      n, e0, per = lease_grant(accts[best], l, best_ask, tok, best_at, me)
    end
  end
  local out = {now, n > 0 and best or -1, n, e0, span}
  for j = 1, 2 * LEASE_N do out[#out + 1] = per[j] or 0 end
  finish()
  return states(out)
end
return redis.error_reply('llmgate: unknown op')
