//===- ModelABITest.cpp - Model metadata and the weights checksum ---------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "mlc/Target/Host/ModelABI.h"

#include <gtest/gtest.h>

#include <cstring>

using namespace mlc::abi;

namespace {
ModelSignature makeSignature() {
  ModelSignature s;
  s.name = "net";
  s.arenaSize = 128;
  s.inputs.push_back({"x", DType::Float32, {1, 3}, {}});
  s.outputs.push_back({"y", DType::Int64, {}, {}});
  return s;
}

TEST(ModelABITest, HashIsFNV1a64) {
  // Published FNV-1a test vectors.
  EXPECT_EQ(hashWeights(nullptr, 0), 0xcbf29ce484222325ull);
  EXPECT_EQ(hashWeights("a", 1), 0xaf63dc4c8601ec8cull);
  EXPECT_EQ(hashWeights("foobar", 6), 0x85944171f73967e8ull);
}

TEST(ModelABITest, MetadataRoundTripsExternalWeights) {
  ModelSignature s = makeSignature();
  s.weights = ExternalWeights{"net.weights", 4096, 0xfedcba9876543210ull};
  llvm::Expected<ModelSignature> parsed = parseModelSignature(toJSON(s));
  ASSERT_TRUE(bool(parsed)) << llvm::toString(parsed.takeError());
  ASSERT_TRUE(parsed->weights.has_value());
  EXPECT_EQ(parsed->weights->file, "net.weights");
  EXPECT_EQ(parsed->weights->size, 4096);
  EXPECT_EQ(parsed->weights->hash, 0xfedcba9876543210ull);
  EXPECT_EQ(parsed->arenaSize, 128);
  ASSERT_EQ(parsed->outputs.size(), 1u);
  EXPECT_TRUE(parsed->outputs[0].shape.empty());
}

TEST(ModelABITest, EmbeddedWeightsHaveNoWeightsEntry) {
  llvm::Expected<ModelSignature> parsed =
      parseModelSignature(toJSON(makeSignature()));
  ASSERT_TRUE(bool(parsed)) << llvm::toString(parsed.takeError());
  EXPECT_FALSE(parsed->weights.has_value());
}

TEST(ModelABITest, MalformedWeightsEntryIsAnError) {
  std::string json = toJSON(makeSignature());
  json.insert(json.size() - 1, R"(,"weights":{"file":"w","size":-1})");
  llvm::Expected<ModelSignature> parsed = parseModelSignature(json);
  ASSERT_FALSE(bool(parsed));
  EXPECT_NE(llvm::toString(parsed.takeError()).find("weights"),
            std::string::npos);
}

TEST(ModelABITest, NPUProgramsRoundTripWithTheirNodes) {
  ModelSignature s = makeSignature();
  NPUCode npu;
  npu.config = R"({"name":"edge"})";
  npu.programs.push_back({0, 64, {{0, 16, false}, {64, 32, true}}, "fc1"});
  npu.programs.push_back({64, 32, {}, ""});
  s.npu = npu;
  std::string json = toJSON(s);
  llvm::Expected<ModelSignature> parsed = parseModelSignature(json);
  ASSERT_TRUE(bool(parsed)) << llvm::toString(parsed.takeError());
  ASSERT_TRUE(parsed->npu.has_value());
  ASSERT_EQ(parsed->npu->programs.size(), 2u);
  EXPECT_EQ(parsed->npu->programs[0].node, "fc1");
  EXPECT_EQ(parsed->npu->programs[0].buffers.size(), 2u);
  EXPECT_TRUE(parsed->npu->programs[0].buffers[1].write);
  // A program without a node (older models) has an empty one.
  EXPECT_EQ(parsed->npu->programs[1].node, "");
  EXPECT_EQ(json.find(R"("node":"")"), std::string::npos);

  // A node that is not a string is malformed.
  std::string bad = json;
  size_t at = bad.find(R"("node":"fc1")");
  ASSERT_NE(at, std::string::npos);
  bad.replace(at, std::strlen(R"("node":"fc1")"), R"("node":7)");
  llvm::Expected<ModelSignature> refused = parseModelSignature(bad);
  ASSERT_FALSE(bool(refused));
  EXPECT_NE(llvm::toString(refused.takeError()).find("npu"),
            std::string::npos);
}

TEST(ModelABITest, ShapesWhoseBytesOverflowAreAnError) {
  // Loaders allocate from these dims: 2^31 x 2^31 x 4 bytes does not fit.
  ModelSignature s = makeSignature();
  s.outputs[0].shape = {int64_t(1) << 31, int64_t(1) << 31};
  llvm::Expected<ModelSignature> parsed = parseModelSignature(toJSON(s));
  ASSERT_FALSE(bool(parsed));
  EXPECT_NE(llvm::toString(parsed.takeError())
                .find("tensor 'y' of the model's outputs in its metadata is "
                      "too large"),
            std::string::npos);
  s.outputs[0].shape = {int64_t(1) << 20, int64_t(1) << 20};
  EXPECT_TRUE(bool(parseModelSignature(toJSON(s))));
}

TEST(ModelABITest, DynamicOutputDimsRoundTripInputsRefuseThem) {
  ModelSignature s = makeSignature();
  s.outputs[0].shape = {2, kDynamicDim};
  llvm::Expected<ModelSignature> parsed = parseModelSignature(toJSON(s));
  ASSERT_TRUE(bool(parsed)) << llvm::toString(parsed.takeError());
  EXPECT_TRUE(parsed->outputs[0].isDynamic());
  EXPECT_EQ(parsed->outputs[0].shape, (std::vector<int64_t>{2, -1}));
  // The caller passes a record: the data's address and two dims.
  EXPECT_EQ(parsed->outputs[0].getNumBytes(), 24);
  EXPECT_EQ(parsed->outputs[0].getNumElements(), -1);
  s.inputs[0].shape = {kDynamicDim, 3};
  EXPECT_FALSE(bool(parseModelSignature(toJSON(s))));
  s = makeSignature();
  s.outputs[0].shape = {-2};
  llvm::Expected<ModelSignature> bad = parseModelSignature(toJSON(s));
  ASSERT_FALSE(bool(bad));
  EXPECT_NE(llvm::toString(bad.takeError()).find("bad dimension"),
            std::string::npos);
}

TEST(ModelABITest, ChecksRoundTripAndNameTheFailedOne) {
  ModelSignature s = makeSignature();
  s.checks = RunTimeChecks{64, {"first", "second"}};
  llvm::Expected<ModelSignature> parsed = parseModelSignature(toJSON(s));
  ASSERT_TRUE(bool(parsed)) << llvm::toString(parsed.takeError());
  ASSERT_TRUE(parsed->checks.has_value());
  EXPECT_EQ(parsed->checks->statusOffset, 64);
  alignas(8) char arena[128] = {};
  EXPECT_STREQ(getCheckMessage(*parsed, arena), "");
  int32_t number = 2;
  std::memcpy(arena + 64, &number, sizeof(number));
  EXPECT_STREQ(getCheckMessage(*parsed, arena), "second");
  number = 3; // past the list: no message, never a read past it
  std::memcpy(arena + 64, &number, sizeof(number));
  EXPECT_STREQ(getCheckMessage(*parsed, arena), "");
  // A status word outside the arena is malformed metadata.
  s.checks->statusOffset = 126;
  EXPECT_FALSE(bool(parseModelSignature(toJSON(s))));
  s.checks->statusOffset = 128;
  EXPECT_FALSE(bool(parseModelSignature(toJSON(s))));
}

TEST(ModelABITest, HeaderDeclaresTheEntryPointOfItsMode) {
  ModelSignature s = makeSignature();
  std::string embedded, external;
  llvm::raw_string_ostream os1(embedded), os2(external);
  writeCHeader({s}, "net.onnx", os1);
  s.weights = ExternalWeights{"net.weights", 64, 1};
  writeCHeader({s}, "net.onnx", os2);
  EXPECT_NE(embedded.find("int32_t net_run(void *arena"), std::string::npos);
  EXPECT_EQ(embedded.find("NET_WEIGHTS_SIZE"), std::string::npos);
  EXPECT_NE(external.find("int32_t net_run_with_weights(const void *weights, "
                          "void *arena"),
            std::string::npos);
  EXPECT_NE(external.find("#define NET_WEIGHTS_FILE \"net.weights\""),
            std::string::npos);
  EXPECT_NE(external.find("#define NET_WEIGHTS_HASH 0x0000000000000001ull"),
            std::string::npos);
  EXPECT_EQ(external.find("int32_t net_run(void"), std::string::npos);
}
} // namespace
