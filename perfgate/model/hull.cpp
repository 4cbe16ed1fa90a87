// SPDX-License-Identifier: Apache-2.0
// The boat hull model: the class language, Table 1, and the band (MODEL.md section 4).
#include <perfgate/error.hpp>
#include <perfgate/hull.hpp>
#include <perfgate/version.hpp>

#include "util/json_fields.hpp"
#include "util/number_format.hpp"
#include "util/strings.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace perfgate::hull {

std::string_view to_string(pattern_kind k) {
  switch (k) {
  case pattern_kind::element: return "element";
  case pattern_kind::neighbourhood: return "neighbourhood";
  case pattern_kind::tile: return "tile";
  case pattern_kind::shared: return "shared";
  }
  return "?";
}
std::string_view to_string(fma_use v) {
  return v == fma_use::yes ? "yes" : v == fma_use::no ? "no" : "unknown";
}
std::string_view to_string(coalescing v) {
  return v == coalescing::known ? "known" : v == coalescing::scattered ? "scattered" : "unknown";
}
std::string_view to_string(vectorised v) {
  return v == vectorised::yes ? "yes" : v == vectorised::no ? "no" : "unknown";
}

namespace {
using detail::trim;

std::string join_dims(const std::vector<std::uint64_t>& dims) {
  std::string s;
  for (const auto v : dims) {
    s += (s.empty() ? "" : "x") + std::to_string(v);
  }
  return s;
}

// The paper writes both "->" and the arrow sign, and sizes with "x" or the multiplication sign.
std::string normalise(std::string_view text) {
  std::string t(text);
  for (const auto& [from, to] :
       {std::pair<std::string_view, std::string_view>{"\u2192", "->"}, {"\u00d7", "x"}}) {
    for (auto at = t.find(from); at != std::string::npos; at = t.find(from, at + to.size())) {
      t.replace(at, from.size(), to);
    }
  }
  return t;
}

[[noreturn]] void bad(const std::string& what) { throw usage_error("species", what); }

// Sizes stay exact in a double (a count of 2^53 elements at most) and their products in 64 bits.
constexpr std::uint64_t k_max_extent = std::uint64_t{1} << 31;
constexpr std::uint64_t k_max_elements = std::uint64_t{1} << 53;

std::vector<std::uint64_t> parse_dims(std::string_view token, std::string_view what,
                                      std::size_t max_dims) {
  std::vector<std::uint64_t> dims;
  std::string_view rest = token;
  while (true) {
    const auto x = rest.find_first_of("xX");
    const std::string_view number = rest.substr(0, x);
    std::uint64_t v = 0;
    const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), v);
    if (number.empty() || ec != std::errc() || end != number.data() + number.size() || v == 0) {
      bad(std::string(what) + " '" + std::string(token) + "': expected " +
          (max_dims == 1 ? "N" : "N or NxM") + " with whole numbers > 0");
    }
    if (v > k_max_extent) {
      bad(std::string(what) + " '" + std::string(token) + "': " + std::to_string(v) +
          " is larger than " + std::to_string(k_max_extent) + " (2^31) per dimension");
    }
    dims.push_back(v);
    if (x == std::string_view::npos) {
      break;
    }
    rest = rest.substr(x + 1);
  }
  if (dims.size() > max_dims) {
    bad(std::string(what) + " '" + std::string(token) + "': at most " + std::to_string(max_dims) +
        " dimensions (" + (max_dims == 1 ? "N" : "N or NxM") + ")");
  }
  return dims;
}

data_part parse_part(std::string_view part, std::string_view whole, std::string_view side) {
  part = trim(part);
  if (part.empty()) {
    bad("expected SIZE|PATTERN " + std::string(side) + " in '" + std::string(whole) + "'");
  }
  auto sep = part.find('|');
  if (sep == std::string_view::npos) {
    sep = part.find_first_of(" \t");
  }
  if (sep == std::string_view::npos) {
    bad("'" + std::string(part) +
        "': expected SIZE|PATTERN or SIZE PATTERN (e.g. 1024x1024|element) " + std::string(side));
  }
  data_part p;
  p.dims = parse_dims(trim(part.substr(0, sep)), "size", 2);
  if (p.elements() > k_max_elements) {
    bad("size '" + std::string(trim(part.substr(0, sep))) + "': " + std::to_string(p.elements()) +
        " elements, more than 2^53");
  }
  const std::string_view pattern = trim(part.substr(sep + 1));
  const auto open = pattern.find('(');
  std::string name(trim(pattern.substr(0, open)));
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  const std::string expected = "expected element, shared, tile(UxV), neighbourhood(NxM) or "
                               "neighbourhood(N)";
  std::string_view args;
  if (open != std::string_view::npos) {
    if (pattern.back() != ')' || pattern.find(')') != pattern.size() - 1) {
      bad("pattern '" + std::string(pattern) + "': unbalanced parentheses; " + expected);
    }
    args = trim(pattern.substr(open + 1, pattern.size() - open - 2));
  }
  if (name == "element" || name == "shared") {
    p.pattern = name == "element" ? pattern_kind::element : pattern_kind::shared;
    if (open != std::string_view::npos) {
      bad("pattern '" + std::string(pattern) + "': " + name + " takes no (...)");
    }
  } else if (name == "tile") {
    p.pattern = pattern_kind::tile;
    p.shape = parse_dims(args, "tile", 2);
    if (open == std::string_view::npos || p.shape.size() != 2) {
      bad("pattern '" + std::string(pattern) + "': expected tile(UxV)");
    }
  } else if (name == "neighbourhood" || name == "neighborhood" || name == "neighb") {
    p.pattern = pattern_kind::neighbourhood;
    if (open == std::string_view::npos) {
      bad("pattern '" + std::string(pattern) +
          "': expected neighbourhood(NxM) or neighbourhood(N)");
    }
    p.shape = parse_dims(args, "neighbourhood", 2);
  } else {
    bad("pattern '" + std::string(pattern) + "': " + expected);
  }
  return p;
}

} // namespace

std::uint64_t data_part::elements() const {
  std::uint64_t n = 1;
  for (const auto v : dims) {
    n *= v;
  }
  return n;
}

std::string data_part::to_string() const {
  std::string s = join_dims(dims) + "|" + std::string(hull::to_string(pattern));
  if (!shape.empty()) {
    s += "(" + join_dims(shape) + ")";
  }
  return s;
}

std::string species::to_string() const {
  std::string s = unordered ? "unordered " : "";
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    s += (i ? " ^ " : "") + inputs[i].to_string();
  }
  return s + " -> " + output.to_string();
}

species parse_species(std::string_view text) {
  const std::string t = normalise(text);
  const auto arrow = t.find("->");
  if (arrow == std::string::npos) {
    bad("'" + std::string(text) + "': expected INPUT -> OUTPUT (with '->' or '\u2192')");
  }
  if (t.find("->", arrow + 2) != std::string::npos) {
    bad("'" + std::string(text) + "': expected one '->', found more");
  }
  species s;
  std::string_view left = trim(std::string_view(t).substr(0, arrow));
  constexpr std::string_view prefix = "unordered";
  if (left.substr(0, prefix.size()) == prefix &&
      (left.size() == prefix.size() || left[prefix.size()] == ' ' || left[prefix.size()] == '\t')) {
    s.unordered = true;
    left = trim(left.substr(prefix.size()));
  }
  for (std::string_view rest = left;;) {
    const auto caret = rest.find('^');
    s.inputs.push_back(parse_part(rest.substr(0, caret), text, "before '->'"));
    if (caret == std::string_view::npos) {
      break;
    }
    rest = rest.substr(caret + 1);
  }
  const std::string_view right = std::string_view(t).substr(arrow + 2);
  if (right.find('^') != std::string_view::npos) {
    bad("'" + std::string(trim(right)) + "': '^' joins inputs; a class has one output");
  }
  s.output = parse_part(right, text, "after '->'");
  if (s.inputs.size() > 2) {
    bad("'" + std::string(text) + "': at most two inputs joined by '^' (Table 1)");
  }
  return s;
}

const std::vector<class_row>& classes() {
  static const std::vector<class_row> rows = {
      {"element_to_element",
       "AxB element -> AxB element",
       "binarization",
       "A*B",
       "1",
       "16 (CPU: 4)",
       "2*A*B",
       "d",
       "0",
       {"c1"},
       "Table 1 row 1; CPU o: section 4.4",
       ""},
      {"unordered_element_to_element",
       "unordered AxB element -> AxB element",
       "xy-mirroring",
       "A*B",
       "1",
       "16",
       "2*A*B",
       "d",
       "0",
       {"c1", "m1"},
       "Table 1 row 2",
       ""},
      {"x_projection",
       "AxB tile(1xB) -> A element",
       "x-projection",
       "A",
       "B",
       "4*m",
       "A*B+A",
       "d",
       "0",
       {"c1", "m1"},
       "Table 1 row 3",
       ""},
      {"scale_down",
       "AxB tile(UxV) -> A/U x B/V element",
       "scale down",
       "(A/U)*(B/V)",
       "U*V",
       "4*m",
       "A*B+(A/U)*(B/V)",
       "d",
       "0",
       {"c1"},
       "Table 1 row 4",
       "printed d = 2*A*B; read as input + output elements, as every other row counts d"},
      {"tile_to_tile",
       "AxB tile(UxV) -> AxB tile(UxV)",
       "2D-DCT",
       "(A/U)*(B/V)",
       "U*V",
       "4*m",
       "2*A*B",
       "A*B",
       "A*B",
       {"c1"},
       "Table 1 row 5",
       ""},
      {"enlarge",
       "AxB element -> A*U x B*V tile(UxV)",
       "enlarge",
       "A*B",
       "U*V",
       "4*m",
       "A*B*(1+U*V)",
       "d",
       "0",
       {"c1"},
       "Table 1 row 6",
       "printed w = (A/U)*(B/V) and d = 2*A*B, which fit an (A/U)x(B/V) input; read for the AxB "
       "input the class names: one work unit per input element, d = input + output"},
      {"neighbourhood_2d",
       "AxB neighbourhood(NxM) -> AxB element",
       "2D-convolution",
       "A*B",
       "N*M",
       "64",
       "2*A*B",
       "d+alpha",
       "beta",
       {"c1"},
       "Table 1 row 7",
       "alpha (extra coalesced) and beta (uncoalesced) accesses are not published: inputs"},
      {"neighbourhood_1d",
       "AxB neighbourhood(N) -> AxB element",
       "1D-convolution",
       "A*B",
       "N",
       "64",
       "2*A*B",
       "d+alpha",
       "beta",
       {"c1"},
       "Table 1 row 8",
       "alpha (extra coalesced) and beta (uncoalesced) accesses are not published: inputs"},
      {"reduction",
       "AxB element -> 1 shared",
       "sum",
       "A*B",
       "1",
       "16",
       "A*B+1",
       "A*B",
       "1",
       {"c1"},
       "Table 1 row 9",
       ""},
      {"histogram",
       "AxB element -> C shared",
       "histogram",
       "A*B",
       "1",
       "64",
       "A*B+C",
       "C",
       "A*B",
       {"c1"},
       "Table 1 row 10",
       "printed with N for the output size C (a notation slip)"},
      {"two_inputs",
       "AxB element ^ AxB element -> AxB element",
       "differencing",
       "A*B",
       "1",
       "32",
       "3*A*B",
       "d",
       "0",
       {"c1"},
       "Table 1 row 11",
       ""},
      {"y_projection",
       "AxB tile(Ax1) -> B element",
       "Y-projection",
       "B",
       "A",
       "4*m",
       "A*B+B",
       "d",
       "0",
       {"c1"},
       "Table 4 (case study), not a Table 1 row",
       "the case study's column sums: neighbouring threads read neighbouring columns, so no m1 "
       "floor (the band's width in Table 5 is the X-projection's alone)"},
  };
  return rows;
}

bool class_params::has_floor(std::string_view floor) const {
  return row != nullptr &&
         std::find(row->floors.begin(), row->floors.end(), floor) != row->floors.end();
}

namespace {

const class_row& row_named(std::string_view id) {
  for (const auto& r : classes()) {
    if (r.id == id) {
      return r;
    }
  }
  throw std::logic_error("hull: no class row " + std::string(id));
}

std::string elements(std::uint64_t n) { return std::to_string(n) + " elements"; }

} // namespace

class_params classify(const species& s, target t, double alpha, double beta) {
  const std::string text = s.to_string();
  const auto no_class = [&](const std::string& why) {
    bad("'" + text + "': no class of Table 1: " + why + " (perfgate hull --list-classes)");
  };
  if (s.inputs.empty()) {
    no_class("no input");
  }
  const data_part& in = s.inputs.front();
  const data_part& out = s.output;
  const double K = static_cast<double>(in.elements());
  const double n_out = static_cast<double>(out.elements());
  class_params p;
  const auto set = [&](std::string_view id, double w, double m, double o, double d, double c,
                       double u) {
    p.row = &row_named(id);
    p.w = w, p.m = m, p.o = o, p.d = d, p.c = c, p.u = u;
  };
  if (in.pattern == pattern_kind::shared) {
    no_class("'shared' is an output pattern, found it on the input side");
  }
  if (out.pattern == pattern_kind::neighbourhood) {
    no_class("'neighbourhood' is an input pattern, found it on the output side");
  }
  if (s.inputs.size() == 2) {
    const data_part& in2 = s.inputs[1];
    if (in.pattern != pattern_kind::element || in2.pattern != pattern_kind::element ||
        out.pattern != pattern_kind::element) {
      no_class("two inputs joined by '^' are a class as element ^ element -> element only");
    }
    if (in.elements() != in2.elements() || in.elements() != out.elements()) {
      no_class("element ^ element -> element needs one size on all three sides, found " +
               elements(in.elements()) + ", " + elements(in2.elements()) + " and " +
               elements(out.elements()));
    }
    set("two_inputs", K, 1, 32, 3 * K, 3 * K, 0);
  } else if (in.pattern == pattern_kind::element) {
    if (out.pattern == pattern_kind::element) {
      if (in.elements() != out.elements()) {
        no_class("element -> element needs the same size on both sides, found " +
                 elements(in.elements()) + " and " + elements(out.elements()));
      }
      const double o = t == target::cpu && !s.unordered ? 4 : 16;
      set(s.unordered ? "unordered_element_to_element" : "element_to_element", K, 1, o, 2 * K,
          2 * K, 0);
    } else if (out.pattern == pattern_kind::shared) {
      if (out.elements() == 1) {
        set("reduction", K, 1, 16, K + 1, K, 1);
      } else {
        set("histogram", K, 1, 64, K + n_out, n_out, K);
      }
    } else { // element -> tile: enlarge
      const auto& uv = out.shape;
      if (in.dims.size() != 2 || out.dims.size() != 2 || out.dims[0] != in.dims[0] * uv[0] ||
          out.dims[1] != in.dims[1] * uv[1]) {
        no_class("element -> tile(UxV) (enlarge) needs an AxB input and an (A*U)x(B*V) output, "
                 "found " +
                 join_dims(in.dims) + " and " + join_dims(out.dims));
      }
      const double m = static_cast<double>(uv[0] * uv[1]);
      set("enlarge", K, m, 4 * m, K + n_out, K + n_out, 0);
    }
  } else if (in.pattern == pattern_kind::neighbourhood) {
    if (out.pattern != pattern_kind::element || in.elements() != out.elements()) {
      no_class("neighbourhood -> element needs an element output of the input's size");
    }
    if (in.shape.size() == 2 && in.dims.size() != 2) {
      no_class("neighbourhood(NxM) walks a 2-D input (AxB), found " + join_dims(in.dims));
    }
    const double m =
        static_cast<double>(in.shape.size() == 2 ? in.shape[0] * in.shape[1] : in.shape[0]);
    set(in.shape.size() == 2 ? "neighbourhood_2d" : "neighbourhood_1d", K, m, 64, 2 * K,
        2 * K + alpha, beta);
  } else { // tile input
    const auto& uv = in.shape;
    if (in.dims.size() != 2 || in.dims[0] % uv[0] != 0 || in.dims[1] % uv[1] != 0) {
      no_class("tile(" + join_dims(uv) + ") must divide a 2-D input AxB, found " +
               join_dims(in.dims));
    }
    const std::uint64_t A = in.dims[0], B = in.dims[1];
    const double tiles = static_cast<double>((A / uv[0]) * (B / uv[1]));
    const double m = static_cast<double>(uv[0] * uv[1]);
    if (out.pattern == pattern_kind::element) {
      if (out.elements() != (A / uv[0]) * (B / uv[1])) {
        no_class("tile(" + join_dims(uv) + ") -> element needs one output element per tile (" +
                 std::to_string((A / uv[0]) * (B / uv[1])) + "), found " +
                 elements(out.elements()));
      }
      const char* id = uv[0] == 1 && uv[1] == B   ? "x_projection"
                       : uv[1] == 1 && uv[0] == A ? "y_projection"
                                                  : "scale_down";
      set(id, tiles, m, 4 * m, K + n_out, K + n_out, 0);
    } else if (out.pattern == pattern_kind::tile && out.dims == in.dims && out.shape == uv) {
      set("tile_to_tile", tiles, m, 4 * m, 2 * K, K, K);
    } else {
      no_class("tile -> " + out.to_string() +
               ": a tile input maps to elements (one per tile) or to the same tiling");
    }
  }
  p.read_elements = 0;
  for (const auto& part : s.inputs) {
    p.read_elements += static_cast<double>(part.elements());
  }
  p.write_elements = n_out;
  if (s.unordered && p.row->id != "unordered_element_to_element") {
    no_class("'unordered' is a class for element -> element only (Table 1 row 2)");
  }
  const bool neighbourhood = p.row->id.substr(0, 13) == "neighbourhood";
  if (!neighbourhood && (alpha != 0 || beta != 0)) {
    throw usage_error("alpha", "alpha and beta are the extra accesses of neighbourhood classes; "
                               "'" +
                                   text + "' is " + std::string(p.row->example));
  }
  if (alpha < 0 || beta < 0) {
    throw usage_error("alpha", "alpha and beta count accesses: expected >= 0");
  }
  return p;
}

band operator+(band a, band b) { return {a.lo + b.lo, a.hi + b.hi}; }

double difference_percent(band predicted, double measured) {
  return std::abs((predicted.lo + predicted.hi) / 2 - measured) / measured * 100;
}

device_rates rates_of(const device& d, bool one_core) {
  device_rates r;
  r.device = d.id;
  r.cpu = d.kind == "cpu";
  if (one_core && !r.cpu) {
    throw usage_error("devices", d.id + " is a GPU: a one-core band is for CPUs");
  }
  if (one_core && !d.one_core_peaks) {
    throw usage_error("devices", d.id + " has no one-core peaks (peaks_one_core): a one-thread "
                                        "band needs them (perfgate calibrate measures them)");
  }
  r.one_core = one_core;
  const scope_peaks s = peaks_of_scope(d, one_core);
  r.compute_gflops = s.peaks.fp32_gflops;
  r.coalesced_gbs = memory_roof_gbs(d, one_core);
  if (const auto u = s.extra.find("uncoalesced_gbs"); u != s.extra.end()) {
    r.uncoalesced_gbs = u->second;
  }
  if (const auto b = d.extra_peaks.find("bus_gbs"); b != d.extra_peaks.end()) {
    r.bus_gbs = b->second;
  }
  r.source = d;
  if (r.cpu) {
    r.patterns = dram_patterns(d, one_core);
    r.vector_bits = d.vector_bits;
    if (d.hardware_threads) {
      r.threads = *d.hardware_threads;
    } else if (d.one_core_peaks && d.one_core_peaks->fp32_gflops > 0) {
      r.threads = d.peaks.fp32_gflops / d.one_core_peaks->fp32_gflops;
    } else if (d.compute_units > 0) {
      r.threads = static_cast<double>(d.compute_units);
    }
  }
  return r;
}

namespace {

std::string num(double v) { return detail::significant(v, 6); }

double need(const std::optional<double>& rate, const device_rates& r, std::string_view key,
            const std::string& why) {
  if (!rate || *rate <= 0) {
    throw usage_error("devices", r.device + " states no peaks." + std::string(key) + ", which " +
                                     why +
                                     " needs (perfgate calibrate measures it, or give "
                                     "it in the device file)");
  }
  return *rate * 1e9;
}

} // namespace

namespace {

// The compute side of a band: from c_lo to c_hi; floor_factor = c1 / c0 (0: no c1 floor).
struct compute_band {
  double lo = 0;
  double hi = 0;
  double floor_factor = 0;
};

// A GPU: the FMA decides between c0 and c1 = 2 c0.
compute_band gpu_compute(double c0, const assumptions& a, prediction& p) {
  compute_band c{c0, c0, 2};
  p.times_s["c1"] = 2 * c0;
  switch (a.fma) {
  case fma_use::yes: p.notes.push_back("FMA yes: compute at c0"); break;
  case fma_use::no:
    c.lo = c.hi = 2 * c0;
    p.notes.push_back("FMA no: compute at c1 = 2 c0 (P_compute counts an FMA as 2 operations)");
    break;
  case fma_use::unknown:
    c.hi = 2 * c0;
    p.notes.push_back("FMA unknown: compute from c0 (FMA) to c1 = 2 c0 (none)");
    break;
  }
  return c;
}

// A CPU: vector width (c1) and threads (c2, c3) are its floors.
compute_band cpu_compute(double c0, double b, const device_rates& r, const assumptions& a,
                         prediction& p) {
  compute_band c{c0, c0, 0};
  if (a.fma != fma_use::unknown) {
    p.notes.push_back("FMA: not modelled on CPUs (the paper's CPU floors are vector width and "
                      "threads); --fma has no effect");
  }
  const double lanes = r.vector_bits ? *r.vector_bits / (8 * b) : 0;
  if (lanes > 0) {
    c.floor_factor = std::max(1.0, lanes);
    p.times_s["c1"] = c0 * c.floor_factor;
    if (!r.one_core && r.threads) {
      p.times_s["c2"] = c0 * *r.threads;
      p.times_s["c3"] = c0 * *r.threads * c.floor_factor;
    }
  }
  switch (a.vector) {
  case vectorised::yes: p.notes.push_back("vectorised: compute at c0"); break;
  case vectorised::no:
  case vectorised::unknown:
    if (lanes <= 0) {
      p.notes.push_back("vectorisation " + std::string(to_string(a.vector)) +
                        ": the scalar floor c1 is left out, " + r.device +
                        " states no vector_bits");
      break;
    }
    c.hi = c0 * c.floor_factor;
    if (a.vector == vectorised::no) {
      c.lo = c.hi;
    }
    p.notes.push_back(std::string(a.vector == vectorised::no ? "scalar code: compute at"
                                                             : "vectorisation unknown: compute "
                                                               "from c0 to") +
                      " c1 = c0 x " + num(c.floor_factor) + " lanes (" +
                      std::to_string(*r.vector_bits) + "-bit vectors, " + num(8 * b) +
                      "-bit elements)");
    break;
  }
  if (r.one_core) {
    p.notes.push_back("one thread: held to one core's peaks");
  }
  return c;
}

// m0, the time of the class's compulsory accesses.
double compulsory_memory_time(const class_params& k, double b, const device_rates& r,
                              prediction& p) {
  const double Pc = r.coalesced_gbs * 1e9;
  if (r.cpu) {
    // P_memory is STREAM in the paper: the measured pattern of the class's own read/write mix
    // (a triad's 2/3 reads) where the calibration has one, else the memory roof.
    double P_memory = Pc;
    std::string via = "the memory roof";
    if (const auto mix = r.patterns.empty()
                             ? std::nullopt
                             : dram_roof_for_mix(r.source, r.one_core, b * k.read_elements,
                                                 b * k.write_elements)) {
      P_memory = mix->gbs * 1e9;
      via = "the measured " + mix->via + " pattern of the class's read/write mix";
    }
    p.notes.push_back("m0 = b c / P_memory with P_memory " + num(P_memory / 1e9) + " GB/s, " + via +
                      " (the paper's CPU memory time: u not modelled)");
    return b * k.c / P_memory;
  }
  const double Pu = k.u > 0 ? need(r.uncoalesced_gbs, r, "uncoalesced_gbs",
                                   "the class's " + num(k.u) + " uncoalesced accesses (u)")
                            : 0;
  return b * (k.c / Pc + (k.u > 0 ? k.u / Pu : 0));
}

// Memory: m0 from the compulsory accesses; m1 when every access may be uncoalesced.
band memory_band(const class_params& k, double b, double m0, const device_rates& r,
                 const assumptions& a, prediction& p) {
  const bool lists_m1 = k.has_floor("m1");
  const bool wants_m1 =
      a.coalesced == coalescing::scattered || (lists_m1 && a.coalesced == coalescing::unknown);
  band m{m0, m0};
  if (wants_m1) {
    const std::string why =
        a.coalesced == coalescing::scattered
            ? "scattered code (every access uncoalesced)"
            : "the m1 floor of " + std::string(k.row->example) + " with coalescing unknown";
    if (r.cpu && !r.uncoalesced_gbs) {
      p.notes.push_back("m1 left out: " + r.device +
                        " states no uncoalesced_gbs (the paper's "
                        "CPU model has no P_uncoalesced)");
    } else {
      const double m1 = b * k.d / need(r.uncoalesced_gbs, r, "uncoalesced_gbs", why);
      p.times_s["m1"] = m1;
      m.hi = m1;
      if (a.coalesced == coalescing::scattered) {
        m.lo = m1;
        p.notes.push_back("coalescing scattered: memory at m1 = b d / P_uncoalesced");
      } else {
        p.notes.push_back("coalescing unknown: memory from m0 to m1 = b d / P_uncoalesced (the "
                          "class lists the m1 floor)");
      }
    }
  } else if (a.coalesced == coalescing::known && lists_m1) {
    p.notes.push_back("coalescing known: memory at m0 (the m1 floor does not apply)");
  } else if (!lists_m1 && a.coalesced == coalescing::unknown) {
    p.notes.push_back("coalescing: no effect, " + std::string(k.row->example) +
                      "'s class lists no m1 floor");
  }
  return m;
}

// t0, the host transfer, added to both ends of the band (GPUs only).
void add_transfers(const class_params& k, double b, const device_rates& r, prediction& p) {
  if (r.cpu) {
    p.notes.push_back("transfers: none on a CPU (t0 applies to GPUs)");
    return;
  }
  const double t0 = b * k.d / need(r.bus_gbs, r, "bus_gbs", "the host transfer t0 (--transfers)");
  p.times_s["t0"] = t0;
  p.band_s = p.band_s + band{t0, t0};
  p.notes.push_back("transfers: t0 = b d / B_bus = " + num(t0 * 1e3) + " ms added to both ends");
}

} // namespace

prediction predict(const class_params& k, double f, const device_rates& r, const assumptions& a) {
  if (!(f > 0) || !std::isfinite(f)) {
    throw usage_error("f", "the operator complexity f must be a number > 0, found " + num(f));
  }
  if (!(a.element_bytes > 0)) {
    throw usage_error("element_bytes", "expected bytes per element > 0");
  }
  prediction p;
  p.device = r.device;
  const double b = a.element_bytes;
  const double P = r.compute_gflops * 1e9;
  const double c0 = k.w * (f * k.m + k.o) / P;
  p.times_s["c0"] = c0;
  p.notes.push_back("c0 = w (f m + o) / P_compute = " + num(k.w) + " x (" + num(f) + " x " +
                    num(k.m) + " + " + num(k.o) + ") / " + num(r.compute_gflops) + " GFLOPS");
  if (r.cpu && k.row->id != "element_to_element") {
    p.notes.push_back("o: Table 1's GPU value (the paper gives a CPU o for element -> element "
                      "only)");
  }
  const compute_band c = r.cpu ? cpu_compute(c0, b, r, a, p) : gpu_compute(c0, a, p);

  const double m0 = compulsory_memory_time(k, b, r, p);
  p.times_s["m0"] = m0;
  const band m = memory_band(k, b, m0, r, a, p);
  p.band_s = {std::max(c.lo, m.lo), std::max(c.hi, m.hi)};
  for (const auto& [key, t] : p.times_s) {
    if (!std::isfinite(t)) {
      throw usage_error("f", key + " is not a finite time (f " + num(f) + " on " + r.device +
                                 "): the class's work overflows");
    }
  }
  const bool memory_lo = m.lo >= c.lo, memory_hi = m.hi >= c.hi;
  p.bound = memory_lo && memory_hi ? "memory" : !memory_lo && !memory_hi ? "compute" : "either";

  if (a.transfers) {
    add_transfers(k, b, r, p);
  }
  // The f at which compute time reaches the coalesced memory time m0.
  const auto crossover = [&](double factor) { return (m0 * P / (factor * k.w) - k.o) / k.m; };
  p.crossover_f["c0"] = crossover(1);
  if (c.floor_factor > 0) {
    p.crossover_f["c1"] = crossover(c.floor_factor);
  }
  return p;
}

application application_from_json(std::string_view text, const std::string& file) {
  const auto doc = detail::json_fields::parse(text, file);
  const detail::json_fields root(doc, file, "");
  (void)root.schema({hull_app_schema});
  application app;
  app.name = root.string_or("name", "");
  const auto& items = root.array("primitives");
  if (items.empty()) {
    root.fail("primitives", "expected at least one primitive");
  }
  for (std::size_t i = 0; i < items.size(); ++i) {
    const auto e = root.element(items[i], i, "primitives");
    primitive p;
    p.name = e.string("name");
    p.species_text = e.string("species");
    try {
      p.kind = parse_species(p.species_text);
    } catch (const usage_error& err) {
      e.fail("species", err.what());
    }
    p.f = e.positive("f");
    p.alpha = e.has("alpha") ? e.non_negative("alpha") : 0;
    p.beta = e.has("beta") ? e.non_negative("beta") : 0;
    if (e.has("fma")) {
      p.fma = e.one_of("fma", {fma_use::yes, fma_use::no, fma_use::unknown});
    }
    if (e.has("coalescing")) {
      p.coalesced =
          e.one_of("coalescing", {coalescing::known, coalescing::unknown, coalescing::scattered});
    }
    app.primitives.push_back(std::move(p));
  }
  app.transfer_elements =
      root.has("transfer_elements") ? root.non_negative("transfer_elements") : 0;
  return app;
}

application_prediction predict_application(const application& app, const device_rates& r,
                                           const assumptions& a) {
  application_prediction out;
  out.device = r.device;
  for (const auto& prim : app.primitives) {
    assumptions mine = a;
    mine.transfers = false;
    mine.fma = prim.fma.value_or(a.fma);
    mine.coalesced = prim.coalesced.value_or(a.coalesced);
    class_params k;
    try {
      k = classify(prim.kind, r.cpu ? target::cpu : target::gpu, prim.alpha, prim.beta);
    } catch (const usage_error& e) {
      throw usage_error(e.argument(), "primitive '" + prim.name + "': " + e.what());
    }
    out.primitives.push_back(predict(k, prim.f, r, mine));
    out.kernels_s = out.kernels_s + out.primitives.back().band_s;
  }
  out.total_s = out.kernels_s;
  if (app.transfer_elements > 0) {
    if (r.cpu) {
      out.notes.push_back("transfers: none on a CPU");
    } else {
      const double t0 = a.element_bytes * app.transfer_elements /
                        need(r.bus_gbs, r, "bus_gbs", "the application's transfer_elements");
      out.transfers_s = t0;
      out.total_s = out.total_s + band{t0, t0};
      out.notes.push_back("transfers: t0 = b x " + num(app.transfer_elements) +
                          " elements / B_bus, once per application");
    }
  }
  return out;
}

} // namespace perfgate::hull
