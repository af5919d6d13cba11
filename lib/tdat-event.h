/* tdat-event.h: placeholder, filled by its module. */
#ifndef TDAT_EVENT_H
#define TDAT_EVENT_H
#endif
