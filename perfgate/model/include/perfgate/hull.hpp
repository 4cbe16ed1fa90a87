// SPDX-License-Identifier: Apache-2.0
/// \file
/// The boat hull model (Nugteren & Corporaal, CF 2012; MODEL.md section 4): a time band for an
/// algorithm class before its code exists. A class is written as the paper's Tables 1 and 4 do
/// (`1024x1024|element -> 1024x1024|element`, `1024x1024 neighb(7x7) → 1024x1024 element`); its
/// Table 1 row gives the work units w, operator applications m per unit, offset operations o,
/// data elements d and compulsory coalesced (c) and uncoalesced (u) accesses; with the operator's
/// complexity f and a device's rates they give compute and memory times whose floors, chosen by
/// what is not yet known about the code (FMA, coalescing, vectorisation), span the band.
/// Times are in seconds; element counts are counts of elements, not bytes.
#pragma once

#include <perfgate/device.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace perfgate::hull {

/// How a primitive walks one of its data structures.
enum class pattern_kind { element, neighbourhood, tile, shared };
[[nodiscard]] std::string_view to_string(pattern_kind k);

/// One side of a class: a data structure of `dims` (1024x1024 is {1024, 1024}) walked by a
/// pattern; `shape` is the neighbourhood's NxM (or N) or the tile's UxV, empty otherwise.
struct data_part {
  std::vector<std::uint64_t> dims;
  pattern_kind pattern = pattern_kind::element;
  std::vector<std::uint64_t> shape;
  [[nodiscard]] std::uint64_t elements() const;
  [[nodiscard]] std::string to_string() const; ///< "1024x1024|tile(1x1024)"
};

/// A parsed class ("species"): one or two inputs joined by `^`, one output, and whether the
/// output order is unknown (`unordered`).
struct species {
  bool unordered = false;
  std::vector<data_part> inputs;
  data_part output;
  [[nodiscard]] std::string to_string() const; ///< canonical: "1024x1024|element -> 1024|element"
};

/// Parses the class language: `[unordered] SIZE SEP PATTERN [^ SIZE SEP PATTERN] ARROW SIZE SEP
/// PATTERN` with ARROW `->` or `→`, SEP `|` or white space, SIZE `1024` or `1024x1024`, PATTERN
/// `element`, `shared`, `tile(UxV)`, `neighbourhood(NxM)` or `neighbourhood(N)` (also spelled
/// `neighborhood`, or `neighb` as Table 4 does). Throws usage_error("species", ...) naming the
/// token that does not fit and what was expected there.
[[nodiscard]] species parse_species(std::string_view text);

/// Where a primitive runs: Table 1's offsets o are GPU values; on a CPU the paper gives o = 4 for
/// element -> element.
enum class target { gpu, cpu };

/// A Table 1 row as the paper prints it (and the Y-projection of the case study), for
/// `perfgate hull --list-classes`.
struct class_row {
  std::string_view id;                  ///< "element_to_element", "x_projection", ...
  std::string_view pattern;             ///< the paper's class, "AxB tile(1xB) -> A element"
  std::string_view example;             ///< "x-projection"
  std::string_view w, m, o, d, c, u;    ///< the formulas, in elements
  std::vector<std::string_view> floors; ///< "c1", "m1"
  std::string_view source;              ///< "Table 1 row 3"
  std::string_view erratum; ///< where the printed row contradicts its class and how it is read
};
[[nodiscard]] const std::vector<class_row>& classes();

/// A class instantiated: its Table 1 row and the row's quantities for the species' sizes.
struct class_params {
  const class_row* row = nullptr;
  double w = 0, m = 0, o = 0, d = 0, c = 0, u = 0;
  double read_elements = 0;  ///< the inputs' elements (the read share of d)
  double write_elements = 0; ///< the output's elements
  [[nodiscard]] bool has_floor(std::string_view floor) const;
};

/// The row a species belongs to and its quantities. Neighbourhood classes add `alpha`
/// coalesced and `beta` uncoalesced accesses (the paper publishes neither). Throws
/// usage_error("species", ...) when no row fits, naming the part that does not (sizes that do
/// not match, a tile that does not divide its input, `unordered` on a class without that row).
[[nodiscard]] class_params classify(const species& s, target t, double alpha = 0, double beta = 0);

enum class fma_use { yes, no, unknown };
enum class coalescing { known, unknown, scattered };
enum class vectorised { yes, no, unknown };
[[nodiscard]] std::string_view to_string(fma_use v);
[[nodiscard]] std::string_view to_string(coalescing v);
[[nodiscard]] std::string_view to_string(vectorised v);

/// What is known about the code to come. Unknown widens the band to both floors.
struct assumptions {
  fma_use fma = fma_use::unknown;
  coalescing coalesced = coalescing::unknown;
  vectorised vector = vectorised::unknown; ///< CPUs: vector or scalar code
  double element_bytes = 4;                ///< b
  bool transfers = false;                  ///< add t0, the host transfer of the class's data
  bool one_core = false;                   ///< CPUs: one thread, held to one core's peaks
};

/// [lo, hi] in seconds.
struct band {
  double lo = 0;
  double hi = 0;
  [[nodiscard]] bool contains(double t) const { return t >= lo && t <= hi; }
  [[nodiscard]] double width() const { return hi - lo; }
};
[[nodiscard]] band operator+(band a, band b);

/// Table 5's "difference": |mean of the band - measured| / measured, in percent.
[[nodiscard]] double difference_percent(band predicted, double measured);

/// The device rates the band uses, 1e9 per second: P_compute (fp32), P_coalesced (the memory
/// roof; on a CPU the paper's P_memory), P_uncoalesced and B_bus when the device states them
/// (`uncoalesced_gbs`, `bus_gbs`), and on a CPU W_vector and N_threads.
struct device_rates {
  std::string device;
  bool cpu = false;
  bool one_core = false;
  double compute_gflops = 0;
  double coalesced_gbs = 0;
  std::optional<double> uncoalesced_gbs;
  std::optional<double> bus_gbs;
  std::optional<int> vector_bits;
  std::optional<double> threads;
  /// CPUs: the measured DRAM patterns (dram_patterns), so that P_memory is the rate of the
  /// class's own read/write mix, as the paper's STREAM figure is; empty for a datasheet CPU.
  std::vector<dram_pattern> patterns;
  perfgate::device source; ///< the device the rates are of
};
/// Throws usage_error("devices", ...) for a CPU asked for one core that has no one-core peaks.
[[nodiscard]] device_rates rates_of(const device& d, bool one_core);

/// The band of one class on one device. `times_s` holds what was computed: c0 and c1 (GPU:
/// no FMA, 2 c0; CPU: the paper's scalar floor c0 W_vector / element bits), on a CPU of all
/// cores c2 (one thread) and c3 (one thread, scalar), m0, m1 (where the class lists it or the
/// code scatters) and t0 (with transfers). `crossover_f` is the operator complexity at which c0
/// (and c1) reach m0: above it the class is compute-bound.
struct prediction {
  std::string device;
  std::map<std::string, double, std::less<>> times_s;
  band band_s;
  std::string bound; ///< "memory", "compute", or "either" when the assumptions decide
  std::map<std::string, double, std::less<>> crossover_f;
  std::vector<std::string> notes; ///< every assumption and floor that shaped the band, said
};

/// Throws usage_error("devices", ...) naming the device and the missing key when the band needs
/// a rate the device lacks (P_uncoalesced for u > 0 or an m1 floor, B_bus for transfers).
[[nodiscard]] prediction predict(const class_params& k, double f, const device_rates& r,
                                 const assumptions& a);

/// One primitive of an application (`perfgate-hull-app/1`).
struct primitive {
  std::string name;
  species kind;
  std::string species_text;
  double f = 1;
  double alpha = 0;
  double beta = 0;
  std::optional<fma_use> fma;          ///< overrides the command's assumption
  std::optional<coalescing> coalesced; ///< overrides the command's assumption
};

struct application {
  std::string name;
  std::vector<primitive> primitives;
  double transfer_elements = 0; ///< host <-> device elements once per application
};

/// Parses `perfgate-hull-app/1`; throws input_error naming the file and key (a species that does
/// not parse is named by its primitive).
[[nodiscard]] application application_from_json(std::string_view text, const std::string& file);

struct application_prediction {
  std::string device;
  std::vector<prediction> primitives; ///< in the file's order
  band kernels_s;                     ///< the primitives' bands added up
  std::optional<double> transfers_s;  ///< t0 of transfer_elements (GPUs)
  band total_s;
  std::vector<std::string> notes;
};
[[nodiscard]] application_prediction
predict_application(const application& app, const device_rates& r, const assumptions& a);

} // namespace perfgate::hull
