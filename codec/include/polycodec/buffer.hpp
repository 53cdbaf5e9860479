#pragma once
/// The growable byte buffer encoders append to. Reused per worker: clear() keeps the memory.

#include <cstddef>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

namespace polycodec {

class output_buffer {
public:
    output_buffer() = default;
    output_buffer(const output_buffer&) = delete;
    output_buffer& operator=(const output_buffer&) = delete;
    output_buffer(output_buffer&&) noexcept = default;
    output_buffer& operator=(output_buffer&&) noexcept = default;

    const char* data() const noexcept { return data_.get(); }
    std::size_t size() const noexcept { return size_; }
    std::size_t capacity() const noexcept { return cap_; }
    bool empty() const noexcept { return size_ == 0; }
    std::string_view view() const noexcept { return {data_.get(), size_}; }
    std::string str() const { return std::string(view()); }
    void clear() noexcept { size_ = 0; }
    /// clear(), and gives the memory back when the capacity is over `keep` bytes (a worker's
    /// buffer after a large answer).
    void shrink(std::size_t keep) noexcept {
        size_ = 0;
        if (cap_ > keep) {
            data_.reset();
            cap_ = 0;
        }
    }
    /// Drops everything after the first `n` bytes.
    void truncate(std::size_t n) noexcept {
        if (n < size_) {
            size_ = n;
        }
    }

    void reserve(std::size_t n) {
        if (n > cap_) {
            grow_to(n);
        }
    }
    /// Makes room for `n` more bytes and returns where they go; call commit(n) after writing.
    char* prepare(std::size_t n) {
        if (size_ + n > cap_) {
            grow_to(size_ + n);
        }
        return data_.get() + size_;
    }
    void commit(std::size_t n) noexcept { size_ += n; }

    void push_back(char c) {
        if (size_ == cap_) {
            grow_to(size_ + 1);
        }
        data_[size_++] = c;
    }
    void append(const void* p, std::size_t n) {
        if (n == 0) {
            return;
        }
        std::memcpy(prepare(n), p, n);
        size_ += n;
    }
    void append(std::string_view s) { append(s.data(), s.size()); }
    /// Writes `b` at position `at` (already written), e.g. to patch a length field.
    void overwrite(std::size_t at, const void* p, std::size_t n) noexcept {
        std::memcpy(data_.get() + at, p, n);
    }
    char* data_mut() noexcept { return data_.get(); }

private:
    void grow_to(std::size_t need) {
        std::size_t cap = cap_ < 256 ? 256 : cap_ * 2;
        while (cap < need) {
            cap *= 2;
        }
        std::unique_ptr<char[]> p(new char[cap]);
        if (size_ != 0) {
            std::memcpy(p.get(), data_.get(), size_);
        }
        data_ = std::move(p);
        cap_ = cap;
    }

    std::unique_ptr<char[]> data_;
    std::size_t size_ = 0;
    std::size_t cap_ = 0;
};

}  // namespace polycodec
