#include <flowagent/flowagent.h>
#include <stdio.h>
int main(void) {
  printf("C consumer: flowagent %s\n", fa_version_string());
  return fa_version_number() == FA_VERSION_NUMBER ? 0 : 1;
}
