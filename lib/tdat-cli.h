/* tdat-cli.h: placeholder, filled by its module. */
#ifndef TDAT_CLI_H
#define TDAT_CLI_H
#endif
