// SPDX-License-Identifier: Apache-2.0
#include <perfgate/error.hpp>
#include <perfgate/pipeline.hpp>
#include <perfgate/version.hpp>

#include "util/json_fields.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <queue>
#include <string>

namespace perfgate::pipeline {

namespace {
void check_latency(const latency& l, std::string_view what) {
  if (!(l.issue > 0) || !(l.completion > 0) || !std::isfinite(l.issue) ||
      !std::isfinite(l.completion)) {
    throw usage_error(std::string(what) + ": latencies must be positive, found lambda " +
                      std::to_string(l.issue) + ", Lambda " + std::to_string(l.completion));
  }
}
} // namespace

double eq1_cycles(const latency& l, std::uint64_t n, std::uint64_t warps) {
  check_latency(l, "Eq. 1");
  if (n == 0 || warps == 0) {
    throw usage_error("Eq. 1: N and W must be at least 1");
  }
  const auto N = static_cast<double>(n), W = static_cast<double>(warps);
  if (W <= l.completion / l.issue) {
    return N * l.completion + (W - 1) * l.issue;
  }
  return l.completion + (N * W - 1) * l.issue;
}

latency fit_eq1(double cycles_one_warp, double cycles_many, std::uint64_t n, std::uint64_t warps) {
  if (!(cycles_one_warp > 0) || !(cycles_many > 0) || n == 0 || warps < 2) {
    throw usage_error("fitting Eq. 1 needs t(1) > 0, t(W) > 0, N >= 1 and W >= 2");
  }
  if (cycles_many < cycles_one_warp) {
    throw usage_error("fitting Eq. 1: " + std::to_string(warps) + " warps took " +
                      std::to_string(cycles_many) + " cycles, fewer than one warp's " +
                      std::to_string(cycles_one_warp) + ": the sweep is not of dependent chains");
  }
  latency l;
  l.completion = cycles_one_warp / static_cast<double>(n);
  l.issue =
      (cycles_many - l.completion) / (static_cast<double>(n) * static_cast<double>(warps) - 1);
  return l;
}

latency_fit fit_sweep(const std::vector<sweep_point>& points, std::string_view what) {
  const std::string name(what);
  const auto one =
      std::find_if(points.begin(), points.end(), [](const sweep_point& p) { return p.warps == 1; });
  const auto most = std::max_element(
      points.begin(), points.end(),
      [](const sweep_point& a, const sweep_point& b) { return a.warps < b.warps; });
  if (one == points.end() || most == points.end() || most->warps < 2) {
    throw usage_error(name + ": the sweep needs a point at 1 warp and one at 2 or more warps");
  }
  for (const auto& p : points) {
    if (p.n != one->n) {
      throw usage_error(name + ": the sweep mixes chains of " + std::to_string(one->n) + " and " +
                        std::to_string(p.n) + " instructions; expected one N");
    }
  }
  latency_fit f;
  f.n = one->n;
  f.warps_fit = most->warps;
  f.lat = fit_eq1(one->cycles, most->cycles, one->n, most->warps);
  f.knee_warps = f.lat.completion / f.lat.issue;
  if (static_cast<double>(most->warps) <= f.knee_warps) {
    throw usage_error(
        name + ": " + std::to_string(most->warps) +
        " warps are not past the knee Lambda / lambda = " + std::to_string(f.knee_warps) +
        ", so lambda cannot be read from them: sweep to more warps per SM");
  }
  for (const auto& p : points) {
    f.max_residual =
        std::max(f.max_residual, std::fabs(eq1_cycles(f.lat, p.n, p.warps) / p.cycles - 1));
  }
  return f;
}

double issue_latency_from_lanes(double lanes, int warp_size) {
  if (!(lanes > 0) || warp_size <= 0) {
    throw usage_error("lambda from lanes needs lanes > 0 and a warp size > 0");
  }
  return warp_size / lanes;
}

std::uint64_t groups_per_compute_unit(std::uint64_t groups, std::uint64_t compute_units) {
  if (compute_units == 0) {
    throw usage_error("groups per compute unit: no compute unit");
  }
  return (groups + compute_units - 1) / compute_units;
}

namespace {
// Per-SM limits of the CUDA programming guide's table of compute capabilities.
struct sm_limits {
  std::string_view arch;
  std::uint64_t warps, groups, shared_bytes, shared_per_group, reserved_per_group;
};
constexpr std::uint64_t kib = 1024;
constexpr sm_limits nvidia_sm_limits[] = {
    {"sm_70", 64, 32, 96 * kib, 96 * kib, 0},     {"sm_75", 32, 16, 64 * kib, 64 * kib, 0},
    {"sm_80", 64, 32, 164 * kib, 163 * kib, kib}, {"sm_86", 48, 16, 100 * kib, 99 * kib, kib},
    {"sm_87", 48, 16, 164 * kib, 163 * kib, kib}, {"sm_89", 48, 24, 100 * kib, 99 * kib, kib},
    {"sm_90", 64, 32, 228 * kib, 227 * kib, kib}, {"sm_100", 64, 32, 228 * kib, 227 * kib, kib},
};

std::uint64_t round_up(std::uint64_t v, std::uint64_t unit) { return (v + unit - 1) / unit * unit; }
} // namespace

occupancy nvidia_occupancy(std::string_view arch, std::uint64_t threads_per_group,
                           const kernel_resources& resources) {
  std::string_view base = arch;
  if (!base.empty() && (base.back() == 'a' || base.back() == 'f')) {
    base.remove_suffix(1); // sm_90a, sm_100a: the same SM
  }
  const sm_limits* sm = nullptr;
  std::string known;
  for (const auto& l : nvidia_sm_limits) {
    known += (known.empty() ? "" : ", ") + std::string(l.arch);
    if (l.arch == base) {
      sm = &l;
    }
  }
  if (sm == nullptr) {
    throw usage_error("occupancy: no SM limits known for " + std::string(arch) +
                      " (known: " + known + "); give the resident groups as a number");
  }
  if (threads_per_group == 0 || threads_per_group > 1024) {
    throw usage_error("occupancy: " + std::to_string(threads_per_group) +
                      " threads per group; a group has 1 to 1024");
  }
  if (resources.registers_per_thread > 255) {
    throw usage_error("occupancy: " + std::to_string(resources.registers_per_thread) +
                      " registers per thread; at most 255");
  }
  const std::uint64_t warps = (threads_per_group + 31) / 32;
  occupancy o{sm->warps / warps, "warps"};
  const auto limit = [&o](std::uint64_t groups, const char* by) {
    if (groups < o.groups) {
      o = {groups, by};
    }
  };
  limit(sm->groups, "groups");
  if (resources.registers_per_thread > 0) {
    // 256 registers per warp at a time, from each of the 4 sub-partitions' 16K.
    const std::uint64_t per_warp = round_up(resources.registers_per_thread * 32ULL, 256);
    limit(4 * (16 * kib / per_warp) / warps, "registers");
  }
  if (resources.shared_bytes_per_group > sm->shared_per_group) {
    throw usage_error("occupancy: " + std::to_string(resources.shared_bytes_per_group) +
                      " bytes of shared memory per group; " + std::string(sm->arch) +
                      " allows at most " + std::to_string(sm->shared_per_group));
  }
  const std::uint64_t shared =
      round_up(resources.shared_bytes_per_group + sm->reserved_per_group, 128);
  if (shared > 0) {
    limit(sm->shared_bytes / shared, "shared memory");
  }
  if (o.groups == 0) {
    throw usage_error("occupancy: a group of " + std::to_string(threads_per_group) +
                      " threads "
                      "with " +
                      std::to_string(resources.registers_per_thread) +
                      " registers each does not fit one " + std::string(sm->arch) + " SM (" +
                      o.limited_by + ")");
  }
  return o;
}

std::string_view to_string(unit u) {
  switch (u) {
  case unit::alu: return "alu";
  case unit::fp64: return "fp64";
  case unit::sfu: return "sfu";
  case unit::lmem: return "lmem";
  case unit::gmem: return "gmem";
  case unit::sync: return "sync";
  case unit::tensor: return "tensor";
  }
  return "?";
}

std::map<std::string, latency, std::less<>> latencies_from_json(std::string_view text,
                                                                const std::string& file) {
  const auto doc = detail::json_fields::parse(text, file);
  const detail::json_fields root(doc, file, "");
  (void)root.schema({latencies_schema});
  const auto ops = root.object("ops");
  std::map<std::string, latency, std::less<>> out;
  for (const auto& [name, value] : ops.raw().items()) {
    (void)value;
    const auto l = ops.object(name);
    out[name] = {l.positive("issue"), l.positive("completion")};
  }
  if (out.empty()) {
    root.fail("ops", "expected at least one instruction class");
  }
  return out;
}

idg idg_from_json(std::string_view text, const std::string& file,
                  const std::map<std::string, latency, std::less<>>& latencies) {
  const auto doc = detail::json_fields::parse(text, file);
  const detail::json_fields root(doc, file, "");
  (void)root.schema({idg_schema});
  const auto& items = root.array("instructions");
  if (items.empty()) {
    root.fail("instructions", "expected at least one instruction");
  }
  std::string classes;
  for (const auto& [name, l] : latencies) {
    classes += (classes.empty() ? "" : ", ") + name;
  }
  idg g;
  g.instructions.reserve(items.size());
  for (std::size_t i = 0; i < items.size(); ++i) {
    const auto f = root.element(items[i], i, "instructions");
    instruction in;
    in.op = f.string("op");
    in.pipe = f.one_of("pipe", {unit::alu, unit::fp64, unit::sfu, unit::lmem, unit::gmem,
                                unit::sync, unit::tensor});
    const std::string cls = f.string("latency");
    const auto l = latencies.find(cls);
    if (l == latencies.end()) {
      f.fail("latency", "no latency class \"" + cls + "\"; the latencies have " + classes);
    }
    in.lat = l->second;
    if (f.has("deps")) {
      const auto& deps = f.array("deps");
      for (std::size_t k = 0; k < deps.size(); ++k) {
        if (!deps[k].is_number_unsigned() || deps[k].get<std::size_t>() >= i) {
          f.fail("deps[" + std::to_string(k) + "]",
                 "expected the index of an earlier instruction (< " + std::to_string(i) +
                     "), found " + deps[k].dump());
        }
        in.deps.push_back(deps[k].get<std::size_t>());
      }
    }
    for (const char* flag : {"store", "barrier"}) {
      if (f.has(flag) && !f.raw().at(flag).is_boolean()) {
        f.fail(flag, "expected true or false");
      }
    }
    in.store = f.has("store") && f.raw().at("store").get<bool>();
    in.barrier = f.has("barrier") && f.raw().at("barrier").get<bool>();
    g.instructions.push_back(std::move(in));
  }
  return g;
}

idg dependent_chain(const latency& l, std::uint64_t n, unit pipe) {
  idg g;
  g.instructions.reserve(n);
  for (std::uint64_t i = 0; i < n; ++i) {
    instruction in;
    in.op = "chain";
    in.pipe = pipe;
    in.lat = l;
    if (i > 0) {
      in.deps = {i - 1};
    }
    g.instructions.push_back(std::move(in));
  }
  return g;
}

namespace {
constexpr std::size_t unit_count = 7;
constexpr double never = std::numeric_limits<double>::infinity();

// A warp instruction at the time it became ready (or completes); seq orders equal times by
// when they were queued, which is readiness order: the oldest ready instruction goes first.
struct event {
  double t;
  std::uint64_t seq;
  std::size_t group; // slot of a resident group
  std::size_t warp;  // within the group
  std::size_t instr;
  bool operator>(const event& o) const { return t != o.t ? t > o.t : seq > o.seq; }
};
using event_queue = std::priority_queue<event, std::vector<event>, std::greater<>>;

struct group_state {
  bool active = false;
  std::uint64_t remaining = 0;                     // completions still to come
  std::vector<std::vector<std::size_t>> deps_left; // [warp][instr]
  std::vector<std::size_t> next_issue;             // in-order: next instruction per warp
  std::vector<std::vector<char>> deps_met;         // in-order: deps done, waiting its turn
  std::vector<std::size_t> barrier_arrived;        // [instr]: warps whose deps are done
};

class simulator {
public:
  simulator(const idg& g, const sim_config& c) : m_g(g), m_c(c) {
    m_users.resize(g.instructions.size());
    for (std::size_t i = 0; i < g.instructions.size(); ++i) {
      for (const std::size_t d : g.instructions[i].deps) {
        m_users[d].push_back(i);
      }
    }
  }

  sim_result run() {
    const std::uint64_t first = std::min(m_c.resident_groups, m_c.groups);
    m_slots.resize(first);
    for (std::size_t s = 0; s < first; ++s) {
      admit(s, 0.0);
    }
    double end = 0;
    while (true) {
      double t = m_completions.empty() ? never : m_completions.top().t;
      for (std::size_t p = 0; p < unit_count; ++p) {
        if (!m_ready[p].empty()) {
          t = std::min(t, issue_gate(std::max(m_free_at[p], m_ready[p].top().t)));
        }
      }
      if (t == never) {
        break;
      }
      while (!m_completions.empty() && m_completions.top().t <= t) {
        const event e = m_completions.top();
        m_completions.pop();
        end = std::max(end, e.t);
        complete(e);
      }
      // The oldest ready instruction first: it matters only when the issue width runs out
      // (without a width each pipe issues at most once at t, whatever the order).
      while (issue_gate(t) <= t) {
        std::size_t best = unit_count;
        for (std::size_t p = 0; p < unit_count; ++p) {
          if (!m_ready[p].empty() && m_free_at[p] <= t && m_ready[p].top().t <= t &&
              (best == unit_count || older(m_ready[p].top(), m_ready[best].top()))) {
            best = p;
          }
        }
        if (best == unit_count) {
          break;
        }
        issue(best, t);
      }
    }
    sim_result r;
    r.cycles = end;
    r.instructions = m_issued;
    const auto busiest = std::max_element(m_busy.begin(), m_busy.end());
    r.busiest = static_cast<unit>(busiest - m_busy.begin());
    r.utilisation = end > 0 ? *busiest / end : 0;
    r.latency_bound = r.utilisation < m_c.theta;
    return r;
  }

private:
  // The earliest time at or after t an instruction may issue: the next cycle when this one's
  // issue slots are spent.
  [[nodiscard]] double issue_gate(double t) const {
    if (m_c.issue_width == 0) {
      return t;
    }
    const double cycle = std::floor(t);
    return cycle == m_cycle && m_issued_in_cycle >= m_c.issue_width ? cycle + 1 : t;
  }

  static bool older(const event& a, const event& b) {
    return a.t < b.t || (a.t == b.t && a.seq < b.seq);
  }

  void admit(std::size_t slot, double t) {
    group_state& gs = m_slots[slot];
    const std::size_t n = m_g.instructions.size();
    gs.active = true;
    gs.remaining = m_c.warps_per_group * n;
    gs.deps_left.assign(m_c.warps_per_group, std::vector<std::size_t>(n));
    gs.next_issue.assign(m_c.warps_per_group, 0);
    gs.deps_met.assign(m_c.warps_per_group, std::vector<char>(n, 0));
    gs.barrier_arrived.assign(n, 0);
    ++m_admitted;
    for (std::size_t w = 0; w < m_c.warps_per_group; ++w) {
      for (std::size_t i = 0; i < n; ++i) {
        gs.deps_left[w][i] = m_g.instructions[i].deps.size();
      }
    }
    for (std::size_t w = 0; w < m_c.warps_per_group; ++w) {
      for (std::size_t i = 0; i < n; ++i) {
        if (gs.deps_left[w][i] == 0) {
          deps_done(slot, w, i, t);
        }
      }
    }
  }

  // Every dep of (warp, instr) has completed at t.
  void deps_done(std::size_t slot, std::size_t w, std::size_t i, double t) {
    group_state& gs = m_slots[slot];
    if (m_g.instructions[i].barrier) {
      if (++gs.barrier_arrived[i] < m_c.warps_per_group) {
        return;
      }
      for (std::size_t v = 0; v < m_c.warps_per_group; ++v) {
        eligible(slot, v, i, t);
      }
      return;
    }
    eligible(slot, w, i, t);
  }

  // Ready as far as data goes; in-order issue also waits for its turn.
  void eligible(std::size_t slot, std::size_t w, std::size_t i, double t) {
    group_state& gs = m_slots[slot];
    if (m_c.in_order && gs.next_issue[w] != i) {
      gs.deps_met[w][i] = 1;
      return;
    }
    m_ready[static_cast<std::size_t>(m_g.instructions[i].pipe)].push({t, m_seq++, slot, w, i});
  }

  void issue(std::size_t p, double t) {
    const event e = m_ready[p].top();
    m_ready[p].pop();
    const instruction& in = m_g.instructions[e.instr];
    m_free_at[p] = t + in.lat.issue;
    m_busy[p] += in.lat.issue;
    ++m_issued;
    if (const double cycle = std::floor(t); cycle != m_cycle) {
      m_cycle = cycle;
      m_issued_in_cycle = 0;
    }
    ++m_issued_in_cycle;
    const double done = t + (in.store ? in.lat.issue : in.lat.completion);
    m_completions.push({done, m_seq++, e.group, e.warp, e.instr});
    if (m_c.in_order) {
      group_state& gs = m_slots[e.group];
      const std::size_t next = ++gs.next_issue[e.warp];
      if (next < m_g.instructions.size() && gs.deps_met[e.warp][next] != 0) {
        m_ready[static_cast<std::size_t>(m_g.instructions[next].pipe)].push(
            {t, m_seq++, e.group, e.warp, next});
      }
    }
  }

  void complete(const event& e) {
    group_state& gs = m_slots[e.group];
    for (const std::size_t u : m_users[e.instr]) {
      if (--gs.deps_left[e.warp][u] == 0) {
        deps_done(e.group, e.warp, u, e.t);
      }
    }
    if (--gs.remaining == 0) {
      gs.active = false;
      if (m_admitted < m_c.groups) {
        admit(e.group, e.t); // the freed slot takes the next group
      }
    }
  }

  const idg& m_g;
  const sim_config& m_c;
  std::vector<std::vector<std::size_t>> m_users;
  std::vector<group_state> m_slots;
  std::array<event_queue, unit_count> m_ready;
  std::array<double, unit_count> m_free_at{};
  std::array<double, unit_count> m_busy{};
  event_queue m_completions;
  std::uint64_t m_seq = 0;
  std::uint64_t m_issued = 0;
  std::uint64_t m_admitted = 0;
  double m_cycle = -1;                 // the whole cycle of the last issue
  std::uint64_t m_issued_in_cycle = 0; // instructions issued in it
};
} // namespace

sim_result simulate(const idg& g, const sim_config& config) {
  if (g.instructions.empty()) {
    throw usage_error("pipeline simulation: the instruction dependence graph is empty");
  }
  if (config.warps_per_group == 0 || config.groups == 0 || config.resident_groups == 0) {
    throw usage_error("pipeline simulation: warps per group, groups and resident groups must be "
                      "at least 1");
  }
  for (std::size_t i = 0; i < g.instructions.size(); ++i) {
    const auto& in = g.instructions[i];
    check_latency(in.lat, "instruction " + std::to_string(i) + " (" + in.op + ")");
    for (const std::size_t d : in.deps) {
      if (d >= i) {
        throw usage_error("instruction " + std::to_string(i) + " (" + in.op + ") depends on " +
                          std::to_string(d) + ": expected an earlier instruction");
      }
    }
  }
  return simulator(g, config).run();
}

} // namespace perfgate::pipeline
