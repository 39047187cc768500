# The layers of gapscope: each sub-folder of model/ and widgets/ is one library that links only
# the layers it may use, and every #include in analysis/, model/ and widgets/ is checked against
# the same graph (cmake/CheckLayering.cmake): an include against the direction fails the build
# and the `layering` test. docs/architecture.md draws the graph declared here.
#
#   gapscope_layer(<folder> [SOURCES <files>...] [USES <folders>...] [LIBS <targets>...])
#
# <folder> is relative to the project root (model/trace); the target is gapscope_<folder> with
# "/" as "_" (gapscope_model_trace). USES names the folders below it that it includes directly;
# it may include what those may, too. A folder without sources is an INTERFACE library.

set_property(GLOBAL PROPERTY GAPSCOPE_LAYERS "")           # folders, lowest first
set_property(GLOBAL PROPERTY GAPSCOPE_LAYER_LIBRARIES "") # their static libraries (fuzz/ shapes them)

function(gapscope_layer_target out folder)
  string(REPLACE "/" "_" name "gapscope_${folder}")
  set(${out} ${name} PARENT_SCOPE)
endfunction()

function(gapscope_layer folder)
  cmake_parse_arguments(PARSE_ARGV 1 L "" "" "SOURCES;USES;LIBS")
  gapscope_layer_target(target ${folder})
  set(uses_targets "")
  foreach(use IN LISTS L_USES)
    gapscope_layer_target(use_target ${use})
    if(NOT TARGET ${use_target})
      message(FATAL_ERROR "layer ${folder} uses ${use}, which is not declared before it")
    endif()
    list(APPEND uses_targets ${use_target})
  endforeach()
  if(L_SOURCES)
    add_library(${target} STATIC ${L_SOURCES})
    target_include_directories(${target} PUBLIC ${PROJECT_SOURCE_DIR})
    target_link_libraries(${target} PUBLIC ${uses_targets} ${L_LIBS})
    set_property(GLOBAL APPEND PROPERTY GAPSCOPE_LAYER_LIBRARIES ${target})
  else()
    add_library(${target} INTERFACE)
    target_include_directories(${target} INTERFACE ${PROJECT_SOURCE_DIR})
    target_link_libraries(${target} INTERFACE ${uses_targets} ${L_LIBS})
  endif()
  # What this folder may include: itself, the folders it uses and everything they may include.
  set(allowed ${folder})
  foreach(use IN LISTS L_USES)
    get_property(below GLOBAL PROPERTY "GAPSCOPE_LAYER_ALLOWED_${use}")
    list(APPEND allowed ${below})
  endforeach()
  list(REMOVE_DUPLICATES allowed)
  list(SORT allowed)
  set_property(GLOBAL PROPERTY "GAPSCOPE_LAYER_ALLOWED_${folder}" "${allowed}")
  set_property(GLOBAL APPEND PROPERTY GAPSCOPE_LAYERS ${folder})
endfunction()

# Writes the graph for the check and adds it to the build (a stamp that depends on every source
# of the checked folders) and to the tests.
function(gapscope_layering_check)
  get_property(layers GLOBAL PROPERTY GAPSCOPE_LAYERS)
  set(text "")
  foreach(folder IN LISTS layers)
    get_property(allowed GLOBAL PROPERTY "GAPSCOPE_LAYER_ALLOWED_${folder}")
    # "," between folders: a ";" would split the line when the check reads it back
    string(REPLACE ";" "," allowed "${allowed}")
    string(APPEND text "${folder}=${allowed}\n")
  endforeach()
  set(graph ${PROJECT_BINARY_DIR}/layers.txt)
  file(GENERATE OUTPUT ${graph} CONTENT "${text}")
  file(GLOB_RECURSE checked CONFIGURE_DEPENDS
       ${PROJECT_SOURCE_DIR}/analysis/*.h ${PROJECT_SOURCE_DIR}/analysis/*.cpp
       ${PROJECT_SOURCE_DIR}/model/*.h ${PROJECT_SOURCE_DIR}/model/*.cpp
       ${PROJECT_SOURCE_DIR}/widgets/*.h ${PROJECT_SOURCE_DIR}/widgets/*.cpp)
  set(command ${CMAKE_COMMAND} -DSOURCE_DIR=${PROJECT_SOURCE_DIR} -DLAYERS=${graph}
              -P ${PROJECT_SOURCE_DIR}/cmake/CheckLayering.cmake)
  add_custom_command(OUTPUT ${PROJECT_BINARY_DIR}/layering.stamp
                     COMMAND ${command}
                     COMMAND ${CMAKE_COMMAND} -E touch ${PROJECT_BINARY_DIR}/layering.stamp
                     DEPENDS ${checked} ${graph} ${PROJECT_SOURCE_DIR}/cmake/CheckLayering.cmake
                     COMMENT "Checking that every include follows the layers"
                     VERBATIM)
  add_custom_target(gapscope_layering ALL DEPENDS ${PROJECT_BINARY_DIR}/layering.stamp)
  add_test(NAME layering COMMAND ${command})
endfunction()
