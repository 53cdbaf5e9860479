// `polycodec serve` flags and POLYCODEC_* variables (DESIGN section 7).
#include "config.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

using namespace polycodec::server;

namespace {

polycodec::result<config> parse(std::vector<std::string> args,
                                std::map<std::string, std::string> env = {}) {
    std::vector<char*> argv;
    for (auto& a : args) {
        argv.push_back(a.data());
    }
    return parse_config(static_cast<int>(argv.size()), argv.data(),
                        [env](const char* name) -> const char* {
                            auto it = env.find(name);
                            return it == env.end() ? nullptr : it->second.c_str();
                        });
}

}  // namespace

TEST(ServeConfig, DefaultsFollowTheDesign) {
    auto c = parse({});
    ASSERT_TRUE(c) << c.error().message;
    EXPECT_EQ(c->http_port, 8080);
    EXPECT_EQ(c->tcp_port, 9090);
    EXPECT_EQ(c->max_body, 64u << 20);
    EXPECT_GE(c->threads, 1u);
    EXPECT_EQ(c->log_level, "info");
    EXPECT_EQ(c->log_format, "text");
    EXPECT_EQ(c->grace.count(), 10000);
    EXPECT_EQ(c->memory_budget, 0u);  // resolved by the service: half the cgroup/physical memory
}

TEST(ServeConfig, MemoryBudgetFlagAndVariable) {
    auto c = parse({"--memory-budget", "64MiB"});
    ASSERT_TRUE(c) << c.error().message;
    EXPECT_EQ(c->memory_budget, std::size_t{64} << 20);
    c = parse({"--memory-budget=1GiB"});
    ASSERT_TRUE(c) << c.error().message;
    EXPECT_EQ(c->memory_budget, std::size_t{1} << 30);
    c = parse({}, {{"POLYCODEC_MEMORY_BUDGET", "300MB"}});
    ASSERT_TRUE(c) << c.error().message;
    EXPECT_EQ(c->memory_budget, 300000000u);
    c = parse({"--memory-budget", "2GiB"}, {{"POLYCODEC_MEMORY_BUDGET", "300MB"}});
    ASSERT_TRUE(c) << c.error().message;
    EXPECT_EQ(c->memory_budget, std::size_t{2} << 30);  // the flag wins
    auto e = parse({"--memory-budget", "lots"});
    ASSERT_FALSE(e);
    EXPECT_NE(e.error().message.find("--memory-budget"), std::string::npos);
    EXPECT_FALSE(parse({"--memory-budget", "1KiB"}));  // under 1 MiB
    EXPECT_FALSE(parse({"--memory-budget", "0"}));
    e = parse({}, {{"POLYCODEC_MEMORY_BUDGET", "12XB"}});
    ASSERT_FALSE(e);
    EXPECT_NE(e.error().message.find("POLYCODEC_MEMORY_BUDGET"), std::string::npos);
    EXPECT_NE(std::string(serve_usage()).find("--memory-budget SIZE"), std::string::npos);
}

TEST(ServeConfig, CompressMinSize) {
    auto c = parse({});
    ASSERT_TRUE(c);
    EXPECT_TRUE(c->compress);
    EXPECT_EQ(c->compress_min_size, 1024u);  // DESIGN section 16: a small size, 1 KiB
    c = parse({"--compress-min-size", "64KiB"});
    ASSERT_TRUE(c) << c.error().message;
    EXPECT_EQ(c->compress_min_size, 64u << 10);
    c = parse({"--compress-min-size=off"});
    ASSERT_TRUE(c) << c.error().message;
    EXPECT_FALSE(c->compress);
    c = parse({"--compress-min-size", "0"}, {{"POLYCODEC_COMPRESS_MIN_SIZE", "off"}});
    ASSERT_TRUE(c) << c.error().message;
    EXPECT_TRUE(c->compress);  // the flag wins
    EXPECT_EQ(c->compress_min_size, 0u);
    auto e = parse({"--compress-min-size", "big"});
    ASSERT_FALSE(e);
    EXPECT_NE(e.error().message.find("--compress-min-size"), std::string::npos);
    EXPECT_NE(std::string(serve_usage()).find("--compress-min-size SIZE"), std::string::npos);
}

TEST(ServeConfig, FlagsInBothSpellings) {
    auto c = parse({"--http-port", "0", "--tcp-port=1234", "--threads", "3", "--max-body", "1KiB",
                    "--log-format", "json", "--grace", "500ms", "--schema-dir", "/s"});
    ASSERT_TRUE(c) << c.error().message;
    EXPECT_EQ(c->http_port, 0);
    EXPECT_EQ(c->tcp_port, 1234);
    EXPECT_EQ(c->threads, 3u);
    EXPECT_EQ(c->max_body, 1024u);
    EXPECT_EQ(c->log_format, "json");
    EXPECT_EQ(c->grace.count(), 500);
    EXPECT_EQ(c->schema_dir, "/s");
}

TEST(ServeConfig, EnvironmentUnderFlags) {
    auto c = parse({"--tcp-port", "5"}, {{"POLYCODEC_HTTP_PORT", "81"},
                                         {"POLYCODEC_TCP_PORT", "82"},
                                         {"POLYCODEC_MAX_BODY", "2MiB"},
                                         {"POLYCODEC_LOG_LEVEL", "debug"},
                                         {"POLYCODEC_HEADER_TIMEOUT", "2s"}});
    ASSERT_TRUE(c) << c.error().message;
    EXPECT_EQ(c->http_port, 81);
    EXPECT_EQ(c->tcp_port, 5);  // the flag wins
    EXPECT_EQ(c->max_body, 2u << 20);
    EXPECT_EQ(c->log_level, "debug");
    EXPECT_EQ(c->header_timeout.count(), 2000);
}

TEST(ServeConfig, RejectsBadValues) {
    EXPECT_FALSE(parse({"--http-port", "70000"}));
    EXPECT_FALSE(parse({"--max-body", "12XB"}));
    EXPECT_FALSE(parse({"--log-format", "xml"}));
    EXPECT_FALSE(parse({"--log-level", "loud"}));
    EXPECT_FALSE(parse({"--no-such-flag", "1"}));
    EXPECT_FALSE(parse({"--threads"}));
    auto e = parse({}, {{"POLYCODEC_HTTP_PORT", "x"}});
    ASSERT_FALSE(e);
    EXPECT_NE(e.error().message.find("POLYCODEC_HTTP_PORT"), std::string::npos);
}

TEST(ServeConfig, SizesAndDurations) {
    EXPECT_EQ(*parse_size("64MiB"), 64u << 20);
    EXPECT_EQ(*parse_size("10"), 10u);
    EXPECT_EQ(*parse_size("1kB"), 1000u);
    EXPECT_EQ(*parse_size("1GiB"), 1u << 30);
    EXPECT_FALSE(parse_size("MiB"));
    EXPECT_EQ(parse_duration("10s")->count(), 10000);
    EXPECT_EQ(parse_duration("250ms")->count(), 250);
    EXPECT_EQ(parse_duration("1.5")->count(), 1500);
    EXPECT_EQ(parse_duration("2m")->count(), 120000);
    EXPECT_FALSE(parse_duration("soon"));
}
