/* The MPI tool information interface (MPI_T) as any MPI-3.1 provides it,
 * whatever variables it exports (Weft: none; Open MPI: many):
 * MPI_T_init_thread works before MPI_Init and nests with MPI_T_finalize;
 * the numbers of variables and categories are readable and each listed
 * one describes itself; indices past the end and unknown names are
 * rejected with the MPI_T error codes; a pvar session opens and closes;
 * after the last MPI_T_finalize every call answers
 * MPI_T_ERR_NOT_INITIALIZED. MPI_T calls return codes and never invoke
 * error handlers.
 */
#include "mpi_test_util.h"

static void check_listed(void)
{
    int ncvar = -1, npvar = -1, ncat = -1, stamp = -1;
    char name[256], desc[1024];

    MPI_OK(MPI_T_cvar_get_num(&ncvar));
    MPI_OK(MPI_T_pvar_get_num(&npvar));
    MPI_OK(MPI_T_category_get_num(&ncat));
    CHECK(ncvar >= 0 && npvar >= 0 && ncat >= 0, "counts %d %d %d", ncvar, npvar, ncat);
    for (int i = 0; i < ncvar && i < 8; i++) {
        int name_len = sizeof name, desc_len = sizeof desc, verbosity, bind, scope;
        MPI_Datatype dt;
        MPI_T_enum en;
        MPI_OK(MPI_T_cvar_get_info(i, name, &name_len, &verbosity, &dt, &en, desc,
                                   &desc_len, &bind, &scope));
    }
    {
        int name_len = sizeof name, desc_len = sizeof desc, verbosity, bind, scope;
        MPI_Datatype dt;
        MPI_T_enum en;
        int rc = MPI_T_cvar_get_info(ncvar, name, &name_len, &verbosity, &dt, &en,
                                     desc, &desc_len, &bind, &scope);
        /* MPI-3.1 says MPI_T_ERR_INVALID_INDEX (Weft's answer); Open MPI
         * 4.1 answers MPI_T_ERR_INVALID. */
        CHECK(rc == MPI_T_ERR_INVALID_INDEX || rc == MPI_T_ERR_INVALID,
              "cvar past the end: %d", rc);
    }
    {
        int idx = -1, rc = MPI_T_cvar_get_index("weft_iface_no_such_variable", &idx);
        CHECK(rc == MPI_T_ERR_INVALID_NAME, "unknown cvar name: %d", rc);
    }
    MPI_OK(MPI_T_category_changed(&stamp));
}

static void check_session(void)
{
    MPI_T_pvar_session s = MPI_T_PVAR_SESSION_NULL;

    MPI_OK(MPI_T_pvar_session_create(&s));
    CHECK(s != MPI_T_PVAR_SESSION_NULL, "session");
    MPI_OK(MPI_T_pvar_session_free(&s));
    CHECK(s == MPI_T_PVAR_SESSION_NULL, "freed session is not NULL");
}

int main(int argc, char **argv)
{
    int provided = -1, n = 0, rc;

    /* Before MPI_Init, and nested. */
    MPI_OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    CHECK(provided >= MPI_THREAD_SINGLE && provided <= MPI_THREAD_MULTIPLE,
          "provided %d", provided);
    MPI_OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    check_listed();
    MPI_OK(MPI_T_finalize());
    MPI_OK(MPI_T_cvar_get_num(&n)); /* still initialised once */
    MPI_OK(MPI_T_finalize());
    rc = MPI_T_cvar_get_num(&n);
    CHECK(rc == MPI_T_ERR_NOT_INITIALIZED, "after MPI_T_finalize: %d", rc);
    rc = MPI_T_finalize();
    CHECK(rc == MPI_T_ERR_NOT_INITIALIZED, "extra MPI_T_finalize: %d", rc);

    /* Beside MPI. */
    MPI_Init(&argc, &argv);
    MPI_OK(MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided));
    check_listed();
    check_session();
    MPI_OK(MPI_T_finalize());
    MPI_Finalize();
    return 0;
}
