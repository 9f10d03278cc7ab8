/* The e2e suite's scenarios, one per test_e2e_*.c table, run by name
 * (`test_e2e depth5`) or listed (`--list`) through e2e_runner.c. */
#include "base.h"
#include "e2e.h"

static const struct e2e_table tables[] = {
	{ e2e_bt_scenarios, &e2e_bt_nscenarios },
	{ e2e_cli_scenarios, &e2e_cli_nscenarios },
	{ e2e_plan_scenarios, &e2e_plan_nscenarios },
	{ e2e_features_scenarios, &e2e_features_nscenarios },
	{ e2e_debug_scenarios, &e2e_debug_nscenarios },
	{ e2e_deep_scenarios, &e2e_deep_nscenarios },
	{ e2e_values_scenarios, &e2e_values_nscenarios },
	{ e2e_exprs_scenarios, &e2e_exprs_nscenarios },
	{ e2e_list_scenarios, &e2e_list_nscenarios },
	{ e2e_unwind_scenarios, &e2e_unwind_nscenarios },
	{ e2e_copies_scenarios, &e2e_copies_nscenarios },
	{ e2e_tls_scenarios, &e2e_tls_nscenarios },
	{ e2e_scriptvals_scenarios, &e2e_scriptvals_nscenarios },
	{ e2e_fault_scenarios, &e2e_fault_nscenarios },
	{ e2e_conditions_scenarios, &e2e_conditions_nscenarios },
	{ e2e_names_scenarios, &e2e_names_nscenarios },
	{ e2e_pprof_scenarios, &e2e_pprof_nscenarios },
	{ e2e_latency_scenarios, &e2e_latency_nscenarios },
};

int main(int argc, char **argv)
{
	return e2e_main(argc, argv, "e2e", tables, BASE_ARRAY_SIZE(tables));
}
