// SPDX-License-Identifier: Apache-2.0
/// \file
/// Convenience header: includes every public perfgate header (tests/headers checks that it
/// does). Prefer the specific ones.
#pragma once

#include <perfgate/calibration.hpp>
#include <perfgate/change_points.hpp>
#include <perfgate/compare.hpp>
#include <perfgate/device.hpp>
#include <perfgate/device_identity.hpp>
#include <perfgate/error.hpp>
#include <perfgate/file_io.hpp>
#include <perfgate/gate.hpp>
#include <perfgate/hull.hpp>
#include <perfgate/hull_report.hpp>
#include <perfgate/import.hpp>
#include <perfgate/model.hpp>
#include <perfgate/pipeline.hpp>
#include <perfgate/profile.hpp>
#include <perfgate/report.hpp>
#include <perfgate/run_meta.hpp>
#include <perfgate/statistics.hpp>
#include <perfgate/version.hpp>
#include <perfgate/writers.hpp>
