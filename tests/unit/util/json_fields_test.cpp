// SPDX-License-Identifier: Apache-2.0
// The typed JSON access every reader uses: its error messages are what users see for bad files.
#include <perfgate/error.hpp>
#include <perfgate/model.hpp>
#include <perfgate/version.hpp>

#include "util/json_fields.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>

namespace {
using perfgate::detail::json_fields;

template <class F> std::string message_of(F&& f) {
  try {
    f();
  } catch (const perfgate::input_error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(JsonFieldsSchema, ReturnsTheAcceptedIdFound) {
  const nlohmann::json doc = {{"schema", "perfgate-report/1"}};
  const json_fields root(doc, "r.json", "");
  EXPECT_EQ(root.schema({perfgate::report_schema, perfgate::report_schema_v1}),
            "perfgate-report/1");
}

TEST(JsonFieldsSchema, RefusalNamesEveryIdAndTheMajorVersionsRead) {
  const nlohmann::json doc = {{"schema", "perfgate-device/1"}};
  const json_fields root(doc, "b.json", "");
  EXPECT_EQ(message_of([&] { (void)root.schema({perfgate::profile_schema}); }),
            "b.json: key 'schema': expected \"perfgate-profile/1\", found \"perfgate-device/1\" "
            "(this perfgate reads profile format major version 1)");
  EXPECT_EQ(message_of([&] {
              (void)root.schema({perfgate::baseline_schema, perfgate::baseline_schema_v1,
                                 perfgate::report_schema, perfgate::report_schema_v1});
            }),
            "b.json: key 'schema': expected \"perfgate-baseline/2\", \"perfgate-baseline/1\", "
            "\"perfgate-report/2\" or \"perfgate-report/1\", found \"perfgate-device/1\" (this "
            "perfgate reads baseline format major versions 1 and 2, report format major versions "
            "1 and 2)");
}

TEST(JsonFieldsSchema, MissingSchemaIsMissing) {
  const nlohmann::json doc = nlohmann::json::object();
  const json_fields root(doc, "x.json", "");
  EXPECT_EQ(message_of([&] { (void)root.schema({perfgate::device_schema}); }),
            "x.json: key 'schema': missing");
}

TEST(JsonFieldsOneOf, ReadsAnEnumeratorByItsName) {
  const nlohmann::json doc = {{"bound", "compute"}, {"other", "latency"}};
  const json_fields f(doc, "r.json", "kernels[0]");
  EXPECT_EQ(f.one_of("bound", {perfgate::bound_class::memory, perfgate::bound_class::compute}),
            perfgate::bound_class::compute);
  EXPECT_EQ(
      message_of([&] {
        (void)f.one_of("other", {perfgate::bound_class::memory, perfgate::bound_class::compute});
      }),
      "r.json: key 'kernels[0].other': unknown value \"latency\", expected one of: memory, "
      "compute");
}
} // namespace
