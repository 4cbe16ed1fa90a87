// SPDX-License-Identifier: Apache-2.0
#include "importers/sass_importer.hpp"

#include <perfgate/error.hpp>
#include <perfgate/version.hpp>

#include "util/number_format.hpp"
#include "util/strings.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <functional>
#include <regex>
#include <set>
#include <unordered_map>

namespace perfgate::detail {

namespace {
using pipeline::unit;

std::string hex_offset(std::uint32_t offset) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%04x", offset);
  return text;
}

std::string base_of(const std::string& opcode) { return opcode.substr(0, opcode.find('.')); }

bool has_modifier(const std::string& opcode, std::string_view modifier) {
  std::size_t start = opcode.find('.');
  while (start != std::string::npos) {
    const std::size_t end = opcode.find('.', start + 1);
    if (opcode.compare(start + 1, end == std::string::npos ? std::string::npos : end - start - 1,
                       modifier) == 0) {
      return true;
    }
    start = end;
  }
  return false;
}

// Control flow and bookkeeping: no pipeline of the model, left out of the graph.
const std::set<std::string, std::less<>> control_opcodes = {
    "BRA",     "BRX",   "JMP",           "JMX",     "CALL",    "RET",      "EXIT",      "BSSY",
    "BSYNC",   "BREAK", "BMOV",          "NOP",     "YIELD",   "WARPSYNC", "DEPBAR",    "MEMBAR",
    "ERRBAR",  "CCTL",  "CCTLL",         "FENCE",   "KILL",    "PMTRIG",   "NANOSLEEP", "WARPGROUP",
    "ACQBULK", "ELECT", "ENDCOLLECTIVE", "PREEXIT", "SETCTAID"};

struct pipe_class {
  unit pipe;
  std::string_view latency_class; ///< empty: the global-memory class of the options
};

// Opcode (without modifiers) -> pipeline and latency class. Integer and logic ALU ops borrow
// IMAD's latency, FP32 and FP16 ops FFMA's, conversions MUFU's: the classes calibrate measures
// (docs/pipeline.md, "The graph from SASS").
const std::unordered_map<std::string_view, pipe_class>& opcode_table() {
  static const std::unordered_map<std::string_view, pipe_class> table = [] {
    std::unordered_map<std::string_view, pipe_class> t;
    for (std::string_view op : {"FFMA", "FADD", "FMUL", "FMNMX", "FSEL", "FSET", "FSETP", "FCHK",
                                "FSWZADD", "HFMA2", "HADD2", "HMUL2", "HMNMX2", "HSET2", "HSETP2",
                                "FFMA32I", "FADD32I", "FMUL32I", "HFMA2.MMA"}) {
      t[op] = {unit::alu, "ffma"};
    }
    for (std::string_view op :
         {"IMAD",  "IMUL",   "IMNMX",    "IADD3",     "IADD",   "IADD32I", "IMAD32I", "LOP3",
          "LOP",   "LOP32I", "SHF",      "SHL",       "SHR",    "LEA",     "ISETP",   "ICMP",
          "MOV",   "MOV32I", "SEL",      "PRMT",      "IABS",   "FLO",     "POPC",    "BREV",
          "BMSK",  "SGXT",   "VABSDIFF", "VABSDIFF4", "P2R",    "R2P",     "PLOP3",   "PSETP",
          "CS2R",  "S2R",    "S2UR",     "VOTE",      "VOTEU",  "MATCH",   "REDUX",   "CSMTEST",
          "UMOV",  "UIADD3", "UIMAD",    "ULEA",      "ULOP3",  "USHF",    "UISETP",  "USEL",
          "UPRMT", "UFLO",   "UPOPC",    "UBREV",     "UPLOP3", "UPSETP",  "ULDC",    "USGXT",
          "UBMSK", "UP2UR",  "UR2UP",    "R2UR",      "ULOP",   "UIABS",   "UIMNMX",  "USHL",
          "USHR"}) {
      t[op] = {unit::alu, "imad"};
    }
    for (std::string_view op : {"DFMA", "DADD", "DMUL", "DMNMX", "DSETP", "DSET"}) {
      t[op] = {unit::fp64, "dfma"};
    }
    for (std::string_view op :
         {"MUFU", "F2F", "F2I", "I2F", "I2FP", "F2IP", "FRND", "I2I", "F2FP"}) {
      t[op] = {unit::sfu, "sfu_ex2"};
    }
    for (std::string_view op : {"LDS", "STS", "ATOMS", "LDSM", "STSM", "LDC", "SHFL", "LDGSTS"}) {
      t[op] = {unit::lmem, "lds_chase"};
    }
    for (std::string_view op :
         {"LDG", "STG", "LD", "ST", "LDL", "STL", "ATOM", "ATOMG", "RED", "REDG", "TLD", "TEX",
          "SULD", "SUST", "UBLKCP", "UTMALDG", "UTMASTG", "SYNCS"}) {
      t[op] = {unit::gmem, ""};
    }
    for (std::string_view op : {"HMMA", "IMMA", "DMMA", "BMMA", "HGMMA", "IGMMA", "QGMMA", "BGMMA",
                                "OMMA", "QMMA", "UTCHMMA", "UTCQMMA", "UTCIMMA"}) {
      t[op] = {unit::tensor, "hmma"};
    }
    t["BAR"] = {unit::sync, "bar"};
    return t;
  }();
  return table;
}

const std::set<std::string, std::less<>> store_opcodes = {"STG",  "STS",  "ST",   "STL",    "RED",
                                                          "REDG", "SUST", "STSM", "UTMASTG"};

bool is_mma(const std::string& base) {
  return opcode_table().count(base) != 0 && opcode_table().at(base).pipe == unit::tensor;
}

// How many consecutive registers the data operand of `opcode` spans (loads' destination, stores'
// source, the destination of arithmetic).
int data_width(const std::string& opcode) {
  const std::string base = base_of(opcode);
  if (is_mma(base) || has_modifier(opcode, "128")) {
    return 4;
  }
  if (has_modifier(opcode, "64") || has_modifier(opcode, "WIDE") || base.front() == 'D') {
    return 2;
  }
  return 1;
}

const std::regex& register_pattern() {
  // R5, UR4, P0, UP1 (RZ, URZ, PT, UPT never carry a value), with .64 for a register pair.
  static const std::regex re(R"((^|[^A-Za-z0-9_])(U?[RP])([0-9]{1,3})(\.64)?)");
  return re;
}

// The registers an operand names, each widened to `width` (or 2 for an explicit .64).
std::vector<std::string> registers_in(const std::string& operand, int width) {
  std::vector<std::string> regs;
  for (auto it = std::sregex_iterator(operand.begin(), operand.end(), register_pattern());
       it != std::sregex_iterator(); ++it) {
    const std::string kind = (*it)[2];
    const int first = std::stoi((*it)[3]);
    const bool predicate = kind.back() == 'P';
    const int n = predicate ? 1 : (*it)[4].matched ? 2 : width;
    for (int k = 0; k < n; ++k) {
      regs.push_back(kind + std::to_string(first + k));
    }
  }
  return regs;
}

bool is_predicate_only(const std::string& operand) {
  static const std::regex re(R"(!?U?P([0-9]+|T))");
  return std::regex_match(operand, re);
}

struct operand_roles {
  std::vector<std::string> defs;
  std::vector<std::string> uses;
};

operand_roles roles_of(const sass_instruction& in) {
  operand_roles r;
  const std::string base = base_of(in.opcode);
  const int width = data_width(in.opcode);
  const bool mma = is_mma(base);
  if (!in.guard.empty()) {
    for (auto& reg : registers_in(in.guard, 1)) {
      r.uses.push_back(reg);
    }
  }
  std::size_t first_use = 0;
  if (store_opcodes.count(base) == 0 && !in.operands.empty()) {
    // The destination, then predicate results right after it (ISETP P0, PT, ...; IADD3 R4, P0,
    // ...), at most two; PLOP3 and VOTE have exactly two results.
    const bool two_results = base == "PLOP3" || base == "UPLOP3" || base == "VOTE";
    std::size_t results = 1;
    while (results < in.operands.size() && results < 3 && is_predicate_only(in.operands[results]) &&
           (!two_results || results < 2)) {
      ++results;
    }
    if (two_results) {
      results = std::min<std::size_t>(2, in.operands.size());
    }
    for (std::size_t k = 0; k < results; ++k) {
      for (auto& reg : registers_in(in.operands[k], k == 0 ? width : 1)) {
        r.defs.push_back(reg);
      }
    }
    first_use = results;
  }
  for (std::size_t k = first_use; k < in.operands.size(); ++k) {
    const std::string& op = in.operands[k];
    int w = 1;
    if (mma || base.front() == 'D') {
      w = width;
    } else if (op.find('[') == std::string::npos && k + 1 == in.operands.size() &&
               has_modifier(in.opcode, "WIDE")) {
      w = 2; // IMAD.WIDE's addend
    } else if (store_opcodes.count(base) != 0 && op.find('[') == std::string::npos) {
      w = width; // the data stored
    }
    for (auto& reg : registers_in(op, w)) {
      r.uses.push_back(reg);
    }
  }
  const auto zero = [](const std::string& reg) {
    return reg == "RZ" || reg == "URZ" || reg == "PT" || reg == "UPT";
  };
  std::erase_if(r.defs, zero);
  std::erase_if(r.uses, zero);
  return r;
}

std::optional<std::uint32_t> branch_target(const sass_instruction& in) {
  const std::string base = base_of(in.opcode);
  if ((base != "BRA" && base != "JMP") || in.operands.empty()) {
    return std::nullopt;
  }
  const std::string& last = in.operands.back();
  std::uint32_t target = 0;
  const char* end = last.data() + last.size();
  if (!last.starts_with("0x")) {
    return std::nullopt; // an indirect branch
  }
  const auto parsed = std::from_chars(last.data() + 2, end, target, 16);
  if (parsed.ec != std::errc() || parsed.ptr != end) {
    return std::nullopt; // no offset of any listing
  }
  return target;
}

std::vector<std::string> split_operands(std::string_view text) {
  std::vector<std::string> out;
  int depth = 0;
  std::string current;
  for (const char c : text) {
    if (c == '[') {
      ++depth;
    } else if (c == ']') {
      --depth;
    }
    if (c == ',' && depth == 0) {
      out.emplace_back(trim(current));
      current.clear();
    } else {
      current += c;
    }
  }
  if (!trim(current).empty()) {
    out.emplace_back(trim(current));
  }
  return out;
}
// Visits every instruction one warp walks through `f`, control flow included: conditional
// forward branches and predicated exits not taken, unconditional ones followed, each loop's body
// run its trip count (every loop has one), nested loops restarting. A walk longer than
// `max_steps` never ends (a malformed listing).
void walk_path(const sass_function& f, const std::map<std::uint32_t, std::uint64_t>& trips,
               std::uint64_t max_steps, const std::function<void(const sass_instruction&)>& visit) {
  std::unordered_map<std::uint32_t, std::size_t> index_of;
  for (std::size_t i = 0; i < f.code.size(); ++i) {
    index_of[f.code[i].offset] = i;
  }
  std::map<std::uint32_t, std::uint64_t> iteration; // of the loops being run, by head
  std::uint64_t steps = 0;
  std::size_t pc = 0;
  while (pc < f.code.size()) {
    if (++steps > max_steps) {
      throw usage_error(f.name + ": the path through the listing does not end within " +
                        std::to_string(max_steps) + " instructions");
    }
    const sass_instruction& in = f.code[pc];
    visit(in);
    const std::string base = base_of(in.opcode);
    if ((base == "EXIT" || base == "RET") && in.guard.empty()) {
      return;
    }
    if (const auto target = branch_target(in)) {
      const auto to = index_of.find(*target);
      if (to == index_of.end()) {
        throw usage_error(f.name + ": the branch at " + hex_offset(in.offset) + " goes to " +
                          hex_offset(*target) + ", which is not an instruction of it");
      }
      if (*target == in.offset && in.guard.empty()) {
        return; // the trap after a kernel's last EXIT: the path ends there
      }
      if (*target < in.offset) {
        std::uint64_t& done = iteration[*target];
        if (++done < trips.at(*target)) {
          pc = to->second;
          continue;
        }
        iteration.erase(*target); // left: an enclosing loop starts it afresh
      } else if (in.guard.empty()) {
        pc = to->second;
        continue;
      }
    }
    ++pc;
  }
}

// Walks a cuobjdump listing: every line with its number (from 1) and the architecture the
// last line matching `arch_line` named (both listings open each architecture's part with
// one), except those lines themselves. Returns the number of lines.
template <class OnLine>
std::size_t walk_listing(std::string_view text, const std::regex& arch_line,
                         const OnLine& on_line) {
  std::string arch;
  std::size_t line_number = 0;
  for (const std::string& line : split_lines(text)) {
    ++line_number;
    std::smatch m;
    if (std::regex_match(line, m, arch_line)) {
      arch = m[1];
    } else {
      on_line(line, line_number, arch);
    }
  }
  return line_number;
}

} // namespace

std::vector<sass_function> sass_from_listing(std::string_view text, const std::string& file) {
  static const std::regex arch_line(R"(^\s*code for (sm_[0-9]+[a-z]?)\s*$)");
  static const std::regex function_line(R"(^\s*Function : (\S+)\s*$)");
  static const std::regex instruction_line(R"(^\s*/\*([0-9a-f]{4,8})\*/\s+(.*?)\s*;.*$)");
  std::vector<sass_function> functions;
  walk_listing(
      text, arch_line,
      [&](const std::string& line, std::size_t line_number, const std::string& arch) {
        std::smatch m;
        if (std::regex_match(line, m, function_line)) {
          functions.push_back({valid_utf8(m[1].str()), arch, {}}); // names reach JSON
        } else if (std::regex_match(line, m, instruction_line)) {
          if (functions.empty()) {
            throw input_error(file, "line " + std::to_string(line_number),
                              "an instruction before any 'Function :' line");
          }
          sass_instruction in;
          in.offset = static_cast<std::uint32_t>(std::stoul(m[1], nullptr, 16));
          std::string body = valid_utf8(m[2].str());
          if (body.starts_with('@')) {
            const auto space = body.find(' ');
            in.guard = body.substr(1, space - 1);
            body = space == std::string::npos ? "" : std::string(trim(body.substr(space + 1)));
          }
          const auto space = body.find(' ');
          in.opcode = body.substr(0, space);
          if (in.opcode.empty()) {
            throw input_error(file, "line " + std::to_string(line_number), "no opcode in: " + line);
          }
          if (space != std::string::npos) {
            in.operands = split_operands(std::string_view(body).substr(space + 1));
          }
          functions.back().code.push_back(std::move(in));
        }
      });
  return functions;
}

std::vector<resource_usage> resource_usage_from_listing(std::string_view text,
                                                        const std::string& file) {
  static const std::regex arch_line(R"(^\s*arch = (sm_[0-9]+[a-z]?)\s*$)");
  static const std::regex function_line(R"(^\s*Function (\S+):\s*$)");
  static const std::regex usage_line(R"(^\s*REG:([0-9]{1,9}) .*SHARED:([0-9]{1,15}) .*$)");
  std::vector<resource_usage> out;
  bool pending = false; // out.back() still lacks its REG/SHARED line
  const auto unfinished = [&](std::size_t line_number) {
    return input_error(file, "line " + std::to_string(line_number),
                       "function " + out.back().function + " without its REG and SHARED");
  };
  const std::size_t lines =
      walk_listing(text, arch_line,
                   [&](const std::string& line, std::size_t line_number, const std::string& arch) {
                     std::smatch m;
                     if (std::regex_match(line, m, function_line)) {
                       if (pending) {
                         throw unfinished(line_number - 1);
                       }
                       out.push_back({arch, m[1], {}});
                       pending = true;
                     } else if (pending && std::regex_match(line, m, usage_line)) {
                       out.back().resources.registers_per_thread =
                           static_cast<std::uint32_t>(std::stoul(m[1]));
                       out.back().resources.shared_bytes_per_group = std::stoull(m[2]);
                       pending = false;
                     }
                   });
  if (pending) {
    throw unfinished(lines);
  }
  return out;
}

std::vector<sass_loop> sass_loops(const sass_function& f) {
  std::vector<sass_loop> loops;
  for (const auto& in : f.code) {
    if (const auto target = branch_target(in); target && *target < in.offset) {
      loops.push_back({*target, in.offset});
    }
  }
  return loops;
}

sass_idg idg_from_sass(const sass_function& f, const sass_idg_options& options) {
  sass_idg g;
  g.kernel = f.name;
  g.arch = f.arch;
  std::string missing;
  for (const auto& loop : sass_loops(f)) {
    const auto it = options.trip_counts.find(loop.head);
    if (it == options.trip_counts.end()) {
      missing +=
          (missing.empty() ? "" : ", ") + hex_offset(loop.head) + ".." + hex_offset(loop.back_edge);
    } else {
      g.trip_counts[loop.head] = it->second;
    }
  }
  if (!missing.empty()) {
    throw usage_error(f.name +
                      ": the trip count of each loop is needed to replicate it: give "
                      "--trip-count HEAD=N for the loop(s) " +
                      missing + " (HEAD is the first offset)");
  }
  for (const auto& [head, trips] : options.trip_counts) {
    if (g.trip_counts.count(head) == 0) {
      std::string loops;
      for (const auto& loop : sass_loops(f)) {
        loops += (loops.empty() ? "" : ", ") + hex_offset(loop.head);
      }
      throw usage_error("--trip-count " + hex_offset(head) + ": no loop of " + f.name +
                        " starts there (" +
                        (loops.empty() ? "it has none" : "its loops: " + loops) + ")");
    }
    if (trips == 0) {
      throw usage_error("--trip-count " + hex_offset(head) +
                        "=0: a loop's body runs at least once along the listing's path");
    }
  }
  std::unordered_map<std::string, std::size_t> last_def;
  std::optional<std::size_t> last_barrier;
  std::vector<std::size_t> stores_since_barrier;
  walk_path(
      f, g.trip_counts, 4 * options.max_instructions + f.code.size(),
      [&](const sass_instruction& in) {
        const std::string base = base_of(in.opcode);
        if (control_opcodes.count(base) != 0) {
          return;
        }
        const auto known = opcode_table().find(base);
        if (known == opcode_table().end()) {
          throw usage_error(f.name + ": no pipeline known for the SASS opcode " + in.opcode +
                            " at " + hex_offset(in.offset) +
                            " (docs/pipeline.md lists the mapped opcodes)");
        }
        idg_entry e;
        e.offset = in.offset;
        e.opcode = in.opcode;
        e.pipe = known->second.pipe;
        e.latency_class = known->second.latency_class.empty() ? options.global_latency
                                                              : known->second.latency_class;
        e.store = store_opcodes.count(base) != 0;
        e.barrier = base == "BAR";
        const operand_roles roles = roles_of(in);
        std::set<std::size_t> deps;
        for (const auto& reg : roles.uses) {
          if (const auto it = last_def.find(reg); it != last_def.end()) {
            deps.insert(it->second);
          }
        }
        if (last_barrier) {
          deps.insert(*last_barrier); // a warp issues nothing past a barrier before it completes
        }
        const std::size_t index = g.instructions.size();
        if (e.barrier) {
          deps.insert(stores_since_barrier.begin(), stores_since_barrier.end());
          if (stores_since_barrier.empty() && index > 0) {
            deps.insert(index - 1);
          }
          stores_since_barrier.clear();
          last_barrier = index;
        } else if (e.store) {
          stores_since_barrier.push_back(index);
        }
        e.deps.assign(deps.begin(), deps.end());
        for (const auto& reg : roles.defs) {
          last_def[reg] = index;
        }
        g.instructions.push_back(std::move(e));
        if (g.instructions.size() > options.max_instructions) {
          throw usage_error(f.name + ": the replicated graph passes " +
                            std::to_string(options.max_instructions) +
                            " warp instructions; give smaller trip counts (the simulator's time "
                            "grows with the graph)");
        }
      });
  if (g.instructions.empty()) {
    throw usage_error(f.name + ": no instruction of a modelled pipeline on the listing's path");
  }
  return g;
}

std::uint64_t trip_count_from_executed(const sass_function& f,
                                       const std::map<std::uint32_t, std::uint64_t>& declared,
                                       double executed_per_warp, std::uint32_t& head) {
  std::map<std::uint32_t, std::uint64_t> trips = declared;
  std::vector<std::uint32_t> open;
  for (const auto& loop : sass_loops(f)) {
    if (!declared.contains(loop.head)) {
      open.push_back(loop.head);
    }
  }
  if (open.size() != 1) {
    throw usage_error(f.name + ": the executed instructions settle one loop's trip count, and " +
                      std::to_string(open.size()) + " loops have none declared" +
                      (open.empty() ? "" : "; declare all but one with --trip-count"));
  }
  head = open.front();
  const auto walked = [&](std::uint64_t n) {
    trips[head] = n;
    std::uint64_t count = 0;
    walk_path(f, trips, 100'000'000, [&count](const sass_instruction&) { ++count; });
    return static_cast<double>(count);
  };
  const double one = walked(1);
  const double slope = walked(2) - one;
  const double solved = 1 + (executed_per_warp - one) / slope;
  if (!(slope > 0) || !(solved >= 0.5) || !std::isfinite(solved)) {
    throw usage_error(f.name + ": " + detail::significant(executed_per_warp, 6) +
                      " warp instructions executed per warp, but its path walks " +
                      std::to_string(static_cast<std::uint64_t>(one)) + " with the loop at " +
                      hex_offset(head) + " run once: the profile is of another build or kernel");
  }
  return static_cast<std::uint64_t>(std::llround(solved));
}

std::string sass_idg_to_json(const sass_idg& g, const std::string& source) {
  nlohmann::ordered_json trips = nlohmann::ordered_json::object();
  for (const auto& [head, n] : g.trip_counts) {
    trips[hex_offset(head)] = n;
  }
  nlohmann::ordered_json instructions = nlohmann::ordered_json::array();
  for (const auto& e : g.instructions) {
    nlohmann::ordered_json j = {{"op", hex_offset(e.offset) + " " + e.opcode},
                                {"pipe", std::string(pipeline::to_string(e.pipe))},
                                {"latency", e.latency_class},
                                {"deps", e.deps}};
    if (e.store) {
      j["store"] = true;
    }
    if (e.barrier) {
      j["barrier"] = true;
    }
    instructions.push_back(std::move(j));
  }
  nlohmann::ordered_json doc = {{"schema", idg_schema},
                                {"kernel", g.kernel},
                                {"arch", g.arch},
                                {"source", source},
                                {"trip_counts", trips}};
  if (g.resources) {
    doc["resources"] = {{"registers_per_thread", g.resources->registers_per_thread},
                        {"shared_bytes_per_group", g.resources->shared_bytes_per_group}};
  }
  doc["instructions"] = std::move(instructions);
  return doc.dump(1) + "\n";
}

std::vector<std::string> latency_classes(const sass_idg& g) {
  std::set<std::string> classes;
  for (const auto& e : g.instructions) {
    classes.insert(e.latency_class);
  }
  return {classes.begin(), classes.end()};
}

} // namespace perfgate::detail
