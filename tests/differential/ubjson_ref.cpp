// Reference converter for test_ubjson.py: nlohmann/json's to_ubjson / from_ubjson.
//   ubjson_ref to-ubjson plain|count|typed < in.json > out.ubj
//   ubjson_ref from-ubjson < in.ubj > out.json
// Built by the test with g++ -std=c++17 (Debian nlohmann-json3-dev).
#include <iostream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

int main(int argc, char** argv) {
    if (argc < 2) {
        std::cerr << "usage: ubjson_ref to-ubjson plain|count|typed | from-ubjson\n";
        return 2;
    }
    std::string mode = argv[1];
    std::string in((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
    try {
        if (mode == "to-ubjson") {
            std::string form = argc > 2 ? argv[2] : "plain";
            auto j = nlohmann::ordered_json::parse(in);
            std::vector<std::uint8_t> out =
                nlohmann::ordered_json::to_ubjson(j, form != "plain", form == "typed");
            std::cout.write(reinterpret_cast<const char*>(out.data()),
                            static_cast<std::streamsize>(out.size()));
        } else if (mode == "from-ubjson") {
            auto j = nlohmann::ordered_json::from_ubjson(in);
            std::cout << j.dump();
        } else {
            std::cerr << "unknown mode " << mode << "\n";
            return 2;
        }
    } catch (const std::exception& e) {
        std::cerr << e.what() << "\n";
        return 1;
    }
    return 0;
}
