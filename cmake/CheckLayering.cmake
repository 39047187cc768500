# cmake -DSOURCE_DIR=<root> -DLAYERS=<build>/layers.txt -P cmake/CheckLayering.cmake
#
# Fails when a file in analysis/, model/ or widgets/ includes a header of a layer its own layer
# may not use (the graph of cmake/GapscopeLayers.cmake, written to LAYERS as
# "folder=allowed;folders"), or when analysis/ includes Qt. One line per offence:
# "file:line: reason", the form compilers use, so editors jump to it.

cmake_minimum_required(VERSION 3.25)

if(NOT SOURCE_DIR OR NOT LAYERS)
  message(FATAL_ERROR "usage: cmake -DSOURCE_DIR=<root> -DLAYERS=<layers.txt> -P CheckLayering.cmake")
endif()


file(STRINGS ${LAYERS} graph_lines)
set(layers "")
foreach(line IN LISTS graph_lines)
  string(FIND "${line}" "=" eq)
  string(SUBSTRING "${line}" 0 ${eq} folder)
  math(EXPR rest "${eq} + 1")
  string(SUBSTRING "${line}" ${rest} -1 allowed)
  string(REPLACE "," ";" allowed "${allowed}")
  set("allowed_${folder}" "${allowed}")
  list(APPEND layers ${folder})
endforeach()

# The layer a path (relative to the root, or an include "model/trace/X.h") belongs to; empty
# for anything else (system headers, generated files, app/ is reported as "app").
function(layer_of path out)
  if(path MATCHES "^analysis/")
    set(${out} analysis PARENT_SCOPE)
  elseif(path MATCHES "^((model|widgets)/[A-Za-z0-9_]+)/")
    set(${out} ${CMAKE_MATCH_1} PARENT_SCOPE)
  elseif(path MATCHES "^app/")
    set(${out} app PARENT_SCOPE)
  else()
    set(${out} "" PARENT_SCOPE)
  endif()
endfunction()

file(GLOB_RECURSE files RELATIVE ${SOURCE_DIR}
     ${SOURCE_DIR}/analysis/*.h ${SOURCE_DIR}/analysis/*.cpp
     ${SOURCE_DIR}/model/*.h ${SOURCE_DIR}/model/*.cpp
     ${SOURCE_DIR}/widgets/*.h ${SOURCE_DIR}/widgets/*.cpp)
list(SORT files)
set(offences 0)
foreach(file IN LISTS files)
  layer_of(${file} own)
  if(NOT own)
    continue()
  endif()
  if(NOT own IN_LIST layers)
    message("${file}:1: folder ${own} is no declared layer (cmake/GapscopeLayers.cmake)")
    math(EXPR offences "${offences} + 1")
    continue()
  endif()
  set(allowed "${allowed_${own}}")
  file(STRINGS ${SOURCE_DIR}/${file} lines)
  set(number 0)
  foreach(line IN LISTS lines)
    math(EXPR number "${number} + 1")
    if(NOT line MATCHES "^[ \t]*#[ \t]*include[ \t]*([\"<])([^\">]+)[\">]")
      continue()
    endif()
    set(header "${CMAKE_MATCH_2}")
    if(CMAKE_MATCH_1 STREQUAL "<")
      if(own STREQUAL "analysis" AND header MATCHES "^Q")
        message("${SOURCE_DIR}/${file}:${number}: includes <${header}>: analysis/ is plain C++, no Qt")
        math(EXPR offences "${offences} + 1")
      endif()
      continue()
    endif()
    layer_of("${header}" target)
    if(NOT target OR target IN_LIST allowed)
      continue()
    endif()
    string(REPLACE ";" ", " allowed_text "${allowed}")
    message("${SOURCE_DIR}/${file}:${number}: includes ${header}: ${own} may use only ${allowed_text} "
            "(cmake/GapscopeLayers.cmake, docs/architecture.md)")
    math(EXPR offences "${offences} + 1")
  endforeach()
endforeach()

list(LENGTH files checked)
if(offences GREATER 0)
  message(FATAL_ERROR "${offences} include(s) against the layers in ${checked} files")
endif()
message(STATUS "layering: ${checked} files, every include follows the layers")
