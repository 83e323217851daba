// tests/store/conformance.h: the behaviours every JobStore has (zkpipe/store/job_store.h), as
// named checks that each store's test calls inside its own TEST_CASEs (sqlite_store_test.cpp,
// postgres_store_test.cpp), one check per case:
//   queue (conformance_queue.h): check_submit_durable_and_request_ids, check_claim_order,
//     check_claim_fence_and_attempt, check_counts, check_list, check_large_input_round_trips
//   leases (conformance_leases.h): check_heartbeat, check_checkpoint_fenced,
//     check_complete_fenced, check_fail_retryable, check_fail_out_of_attempts, check_reap
//   clients (conformance_clients.h): check_cancel, check_release, check_expire, check_workers
// A check opens a new, empty store through StoreUnderTest::fresh (conformance_support.h), sets
// the knobs it needs (lease, attempts, back-off, retention, chunk size) and waits for database
// time with bounded polls. Thread-safety: call from the Catch2 test thread.
#pragma once

#include "store/conformance_clients.h"
#include "store/conformance_leases.h"
#include "store/conformance_queue.h"
#include "store/conformance_support.h"
