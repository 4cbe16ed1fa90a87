// SPDX-License-Identifier: Apache-2.0
// The stream of a kernel launch, from the parameter block CUPTI hands a launch callback: where
// the injection library queues its L2 flush so that it runs right before that kernel.
#pragma once

#include <cuda.h>
#include <cupti.h>

namespace perfgate::cupti {

/// The stream the launch (domain, id) goes to: a per-thread-default-stream (_ptsz) launch on
/// the null stream goes to CU_STREAM_PER_THREAD; a call that is none of the runtime and driver
/// launches the injection library subscribes to, to the legacy default stream (nullptr).
[[nodiscard]] CUstream launch_stream(CUpti_CallbackDomain domain, CUpti_CallbackId id,
                                     const void* params);

} // namespace perfgate::cupti
