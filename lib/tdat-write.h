/* tdat-write.h: placeholder, filled by its module. */
#ifndef TDAT_WRITE_H
#define TDAT_WRITE_H
#endif
