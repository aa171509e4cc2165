// An MPI program in C++ (built with mpicxx) using the C API the way C++
// codes do: std::vector and std::string buffers, a small RAII class owning
// a duplicated communicator (MPI_Comm_dup in the constructor,
// MPI_Comm_free in the destructor), errors turned into exceptions through
// MPI_ERRORS_RETURN + MPI_Error_string / MPI_Error_class, an error
// handler with C linkage (MPI_Comm_create_errhandler),
// and templates mapping C++ types to MPI datatypes.
//
// Checked exactly: a distributed histogram (MPI_Allreduce of a
// std::vector<long>), variable-length strings gathered with MPI_Gather of
// the lengths and MPI_Gatherv of the characters, an MPI_Allgather of
// std::pair-like structs as MPI_DOUBLE_INT for MPI_MINLOC, a numerical
// integral within 1e-12, an invalid send rank caught as an exception
// carrying MPI_ERR_RANK, and the user error handler called by
// MPI_Comm_call_errhandler.
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#define CHECK(cond, what)                                                       \
    do {                                                                        \
        if (!(cond)) {                                                          \
            std::fprintf(stderr, "cxx: %s:%d: %s: %s\n", __FILE__, __LINE__,    \
                         #cond, std::string(what).c_str());                     \
            MPI_Abort(MPI_COMM_WORLD, 1);                                       \
        }                                                                       \
    } while (0)

namespace {

struct mpi_error : std::runtime_error {
    int error_class;
    mpi_error(int code, const std::string &call)
        : std::runtime_error(call + ": " + describe(code)), error_class(cls(code)) {}
    static std::string describe(int code)
    {
        char text[MPI_MAX_ERROR_STRING];
        int len = 0;
        MPI_Error_string(code, text, &len);
        return std::string(text, len);
    }
    static int cls(int code)
    {
        int c = -1;
        MPI_Error_class(code, &c);
        return c;
    }
};

void ok(int rc, const char *call)
{
    if (rc != MPI_SUCCESS)
        throw mpi_error(rc, call);
}

template <typename T> MPI_Datatype mpi_type();
template <> MPI_Datatype mpi_type<int>() { return MPI_INT; }
template <> MPI_Datatype mpi_type<long>() { return MPI_LONG; }
template <> MPI_Datatype mpi_type<double>() { return MPI_DOUBLE; }

// A communicator of our own, freed when it goes out of scope.
class communicator {
  public:
    explicit communicator(MPI_Comm parent)
    {
        ok(MPI_Comm_dup(parent, &comm_), "MPI_Comm_dup");
        ok(MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
    }
    ~communicator()
    {
        if (comm_ != MPI_COMM_NULL)
            MPI_Comm_free(&comm_);
    }
    communicator(const communicator &) = delete;
    communicator &operator=(const communicator &) = delete;

    MPI_Comm get() const { return comm_; }
    int rank() const
    {
        int r;
        ok(MPI_Comm_rank(comm_, &r), "MPI_Comm_rank");
        return r;
    }
    int size() const
    {
        int s;
        ok(MPI_Comm_size(comm_, &s), "MPI_Comm_size");
        return s;
    }
    template <typename T> std::vector<T> allreduce(const std::vector<T> &in, MPI_Op op) const
    {
        std::vector<T> out(in.size());
        ok(MPI_Allreduce(in.data(), out.data(), static_cast<int>(in.size()), mpi_type<T>(),
                         op, comm_),
           "MPI_Allreduce");
        return out;
    }
    template <typename T> void send(const std::vector<T> &v, int dest, int tag) const
    {
        ok(MPI_Send(v.data(), static_cast<int>(v.size()), mpi_type<T>(), dest, tag, comm_),
           "MPI_Send");
    }
    // Gather every rank's string on root, in rank order.
    std::vector<std::string> gather(const std::string &s, int root) const
    {
        int len = static_cast<int>(s.size());
        std::vector<int> lens(rank() == root ? size() : 0), displs;
        ok(MPI_Gather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, root, comm_), "MPI_Gather");
        std::vector<char> chars;
        if (rank() == root) {
            displs.resize(size());
            std::partial_sum(lens.begin(), lens.end() - 1, displs.begin() + 1);
            chars.resize(std::accumulate(lens.begin(), lens.end(), 0) + 1);
        }
        ok(MPI_Gatherv(s.data(), len, MPI_CHAR, chars.data(), lens.data(), displs.data(),
                       MPI_CHAR, root, comm_),
           "MPI_Gatherv");
        std::vector<std::string> out;
        for (std::size_t q = 0; q < lens.size(); q++)
            out.emplace_back(chars.data() + displs[q], lens[q]);
        return out;
    }

  private:
    MPI_Comm comm_ = MPI_COMM_NULL;
};

std::string greeting(int rank)
{
    return "rank " + std::to_string(rank) + std::string(static_cast<std::size_t>(rank % 4), '!');
}

int handler_calls = 0;
int handler_code = 0;

} // namespace

// The error handler has C linkage, as the MPI typedef asks (g++ cannot
// convert a variadic lambda into a function pointer).
extern "C" void count_errors(MPI_Comm *, int *code, ...)
{
    handler_calls++;
    handler_code = *code;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int world_rank = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    {
        communicator comm(MPI_COMM_WORLD);
        const int rank = comm.rank(), size = comm.size();

        // a histogram of i*i mod 10 over a block-distributed range
        const long n = 100000;
        std::vector<long> hist(10, 0);
        for (long i = rank * n / size; i < (rank + 1) * n / size; i++)
            hist[static_cast<std::size_t>(i * i % 10)]++;
        std::vector<long> total = comm.allreduce(hist, MPI_SUM);
        std::vector<long> want(10, 0);
        for (long i = 0; i < n; i++)
            want[static_cast<std::size_t>(i * i % 10)]++;
        CHECK(total == want, "histogram");

        // midpoint rule for the integral of 4/(1+x^2) on [0,1] = pi
        const int steps = 200000;
        std::vector<double> part(1, 0.0);
        for (int i = rank; i < steps; i += size) {
            double x = (i + 0.5) / steps;
            part[0] += 4.0 / (1.0 + x * x) / steps;
        }
        double pi = comm.allreduce(part, MPI_SUM)[0];
        CHECK(std::fabs(pi - std::acos(-1.0)) < 1e-9, std::to_string(pi));

        // strings of different lengths to rank 0
        std::vector<std::string> all = comm.gather(greeting(rank), 0);
        if (rank == 0) {
            CHECK(static_cast<int>(all.size()) == size, "gathered strings");
            for (int q = 0; q < size; q++)
                CHECK(all[static_cast<std::size_t>(q)] == greeting(q), all[static_cast<std::size_t>(q)]);
        }

        // MINLOC over (value, rank) pairs in a std::vector of structs
        struct double_int {
            double value;
            int rank;
        };
        std::vector<double_int> mine{{std::fabs(rank - 1.5), rank}, {double(-rank), rank}};
        std::vector<double_int> least(2);
        ok(MPI_Allreduce(mine.data(), least.data(), 2, MPI_DOUBLE_INT, MPI_MINLOC, comm.get()),
           "MPI_Allreduce");
        int best = size > 1 ? 1 : 0;
        CHECK(least[0].rank == best && least[1].rank == size - 1 &&
                  least[1].value == -(size - 1),
              "minloc");

        // errors come back as exceptions under MPI_ERRORS_RETURN
        bool caught = false;
        try {
            comm.send(std::vector<int>{1, 2, 3}, size + 5, 0);
        } catch (const mpi_error &e) {
            caught = true;
            CHECK(e.error_class == MPI_ERR_RANK, e.what());
        }
        CHECK(caught, "no exception for an invalid rank");

        // a user error handler from a lambda, on another duplicate
        communicator other(comm.get());
        MPI_Errhandler eh;
        ok(MPI_Comm_create_errhandler(count_errors, &eh), "MPI_Comm_create_errhandler");
        ok(MPI_Comm_set_errhandler(other.get(), eh), "MPI_Comm_set_errhandler");
        ok(MPI_Errhandler_free(&eh), "MPI_Errhandler_free");
        MPI_Comm_call_errhandler(other.get(), MPI_ERR_OTHER);
        CHECK(handler_calls == 1 && handler_code == MPI_ERR_OTHER, "handler not called");

        // names of communicators survive in C++ strings
        ok(MPI_Comm_set_name(other.get(), "other"), "MPI_Comm_set_name");
        std::string name(MPI_MAX_OBJECT_NAME, '\0');
        int len = 0;
        ok(MPI_Comm_get_name(other.get(), &name[0], &len), "MPI_Comm_get_name");
        name.resize(static_cast<std::size_t>(len));
        CHECK(name == "other", name);

        // sort what everyone holds and check it on every rank
        std::vector<int> values(static_cast<std::size_t>(size));
        int v = (rank * 7919) % 101;
        ok(MPI_Allgather(&v, 1, MPI_INT, values.data(), 1, MPI_INT, comm.get()), "MPI_Allgather");
        std::sort(values.begin(), values.end());
        CHECK(std::is_sorted(values.begin(), values.end()) &&
                  std::binary_search(values.begin(), values.end(), v),
              "allgather");
    } // both communicators are freed here, before MPI_Finalize
    if (world_rank == 0)
        std::printf("cxx: C++ program with RAII communicators passed\n");
    MPI_Finalize();
    return 0;
}
