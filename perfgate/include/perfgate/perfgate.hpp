// SPDX-License-Identifier: Apache-2.0
/// \file
/// Convenience header: includes every public perfgate header. Prefer the specific ones.
#pragma once

#include <perfgate/device.hpp>
#include <perfgate/error.hpp>
#include <perfgate/file_io.hpp>
#include <perfgate/import.hpp>
#include <perfgate/model.hpp>
#include <perfgate/profile.hpp>
#include <perfgate/report.hpp>
#include <perfgate/version.hpp>
