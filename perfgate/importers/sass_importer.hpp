// SPDX-License-Identifier: Apache-2.0
// NVIDIA SASS as `cuobjdump -sass` lists it, read into the pipeline model's instruction
// dependence graph (perfgate-idg/1): opcodes mapped to pipelines and latency classes,
// dependences from register definitions and uses, loops replicated by their trip counts
// (docs/pipeline.md, "The graph from SASS").
#pragma once

#include <perfgate/pipeline.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace perfgate::detail {

struct sass_instruction {
  std::uint32_t offset = 0;
  std::string guard;  ///< "P0", "!P0", ... or empty
  std::string opcode; ///< with its modifiers: "LDG.E.CONSTANT"
  std::vector<std::string> operands;
};

struct sass_function {
  std::string name; ///< mangled, as listed
  std::string arch; ///< "sm_90"
  std::vector<sass_instruction> code;
};

/// Every function of a `cuobjdump -sass` listing (cubin, fatbin or executable), for every
/// architecture in it. Throws input_error naming `file` and the line for an instruction line
/// it cannot read.
[[nodiscard]] std::vector<sass_function> sass_from_listing(std::string_view text,
                                                           const std::string& file);

/// A loop of a function: the back edge (a branch to an earlier offset) and its target.
struct sass_loop {
  std::uint32_t head = 0;      ///< first instruction of the body
  std::uint32_t back_edge = 0; ///< the branch back to it
};
[[nodiscard]] std::vector<sass_loop> sass_loops(const sass_function& f);

struct sass_idg_options {
  /// Times each loop's body runs, by the loop head's offset; every loop needs one.
  std::map<std::uint32_t, std::uint64_t> trip_counts;
  /// The latency class of global and local memory instructions: ldg_chase_dram (a miss in
  /// every cache) or ldg_chase_l2.
  std::string global_latency = "ldg_chase_dram";
  std::uint64_t max_instructions = 5'000'000;
};

/// One instruction of the graph, with its latency class by name (the ops of a
/// perfgate-latencies/1 file).
struct idg_entry {
  std::uint32_t offset = 0;
  std::string opcode;
  pipeline::unit pipe = pipeline::unit::alu;
  std::string latency_class;
  std::vector<std::size_t> deps;
  bool store = false;
  bool barrier = false;
};

struct sass_idg {
  std::string kernel;
  std::string arch;
  std::vector<idg_entry> instructions;
  std::map<std::uint32_t, std::uint64_t> trip_counts;
  /// From `cuobjdump -res-usage` when known: what `simulate --occupancy auto` needs.
  std::optional<pipeline::kernel_resources> resources;
};

/// One function of a `cuobjdump -res-usage` listing.
struct resource_usage {
  std::string arch; ///< "sm_90"; empty for a bare cubin's listing, which names none
  std::string function;
  pipeline::kernel_resources resources; ///< REG and SHARED as cuobjdump reports them
};

/// Every function of a `cuobjdump -res-usage` listing. Throws input_error naming `file` and
/// the line for a function without its REG and SHARED.
[[nodiscard]] std::vector<resource_usage> resource_usage_from_listing(std::string_view text,
                                                                      const std::string& file);

/// The dependence graph of one warp running `f` along its straight path: conditional forward
/// branches and predicated exits not taken, unconditional ones followed, each loop's body run
/// its trip count, control instructions (branches, convergence, NOP) left out. An instruction
/// depends on the last definitions of the registers and predicates it reads (a .64 / .WIDE /
/// .128 operand spans 2 / 2 / 4 registers) and on the warp's last barrier. Throws usage_error
/// for a loop without a trip count (naming every loop), an opcode without a known pipeline,
/// or a graph larger than max_instructions.
[[nodiscard]] sass_idg idg_from_sass(const sass_function& f, const sass_idg_options& options);

/// The trip count of the one loop of `f` that `declared` leaves out, from the warp
/// instructions each warp executed (a profile's executed warp instructions over its launches'
/// warps): the path's instructions, control flow included, are affine in that trip count, so
/// two walks give the line it is solved on, rounded. Throws usage_error when no loop or more
/// than one is left out, or the count gives no trip count of at least 1 (naming both counts).
[[nodiscard]] std::uint64_t
trip_count_from_executed(const sass_function& f,
                         const std::map<std::uint32_t, std::uint64_t>& declared,
                         double executed_per_warp, std::uint32_t& head);

/// `perfgate-idg/1` JSON of the graph (what `perfgate pipeline simulate --idg` reads).
[[nodiscard]] std::string sass_idg_to_json(const sass_idg& g, const std::string& source);

/// The latency classes the graph needs, sorted.
[[nodiscard]] std::vector<std::string> latency_classes(const sass_idg& g);

} // namespace perfgate::detail
