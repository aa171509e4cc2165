/* The engine's state: its one instance per process, `wmpi_eng` (fields,
 * and the lock that guards them: internal.h), and the MPI-visible flags,
 * `wmpi_state` (engine.h).
 *
 * Why a file of its own: every part of the engine reads this state, and
 * init.c, which fills it in, calls nearly every part; defined in init.c,
 * the state would tie each reader to it.
 */
#include "engine/core/internal.h"

wmpi_engine wmpi_eng = { .lock = WMPI_LOCK_INITIALIZER };
wmpi_env wmpi_state;
