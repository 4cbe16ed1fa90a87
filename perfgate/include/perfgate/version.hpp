// SPDX-License-Identifier: Apache-2.0
/// \file
/// perfgate's version and the versions of the JSON formats it writes. A format's major number
/// changes only when a reader of the old format would misread the new one; readers accept their
/// own major version and reject any other.
#pragma once

#include <string_view>

namespace perfgate {
[[nodiscard]] std::string_view version(); ///< perfgate's own version, "0.1.0"
inline constexpr std::string_view profile_schema = "perfgate-profile/1";
inline constexpr std::string_view device_schema = "perfgate-device/1";
inline constexpr std::string_view report_schema = "perfgate-report/1";
} // namespace perfgate
