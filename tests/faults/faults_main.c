/* The faults suite's scenarios, one table per test_faults_*.c, run by name
 * (`test_faults escape-output`) or listed (`--list`) through the e2e
 * runner: skipped with the reason when this machine cannot run them. */
#include "base.h"
#include "faults.h"

static const struct e2e_table tables[] = {
	{ faults_output_scenarios, &faults_output_nscenarios },
	{ faults_teardown_scenarios, &faults_teardown_nscenarios },
	{ faults_input_scenarios, &faults_input_nscenarios },
	{ faults_target_scenarios, &faults_target_nscenarios },
	{ faults_events_scenarios, &faults_events_nscenarios },
	{ faults_scale_scenarios, &faults_scale_nscenarios },
	{ faults_files_scenarios, &faults_files_nscenarios },
	{ faults_messages_scenarios, &faults_messages_nscenarios },
};

int main(int argc, char **argv)
{
	return e2e_main(argc, argv, "faults", tables, BASE_ARRAY_SIZE(tables));
}
